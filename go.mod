module github.com/mcpeval/mcpeval

go 1.25.5

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875
	github.com/google/shlex v0.0.0-20191202100458-e7afc7fbc510
	github.com/hbollon/go-edlib v1.7.0
	github.com/joho/godotenv v1.5.1
	github.com/mark3labs/mcp-go v1.2.1
	github.com/pkoukk/tiktoken-go v0.1.8
	github.com/pkoukk/tiktoken-go-loader v0.0.2
	github.com/rogpeppe/go-internal v1.14.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/sashabaranov/go-openai v1.43.0
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/mod v0.27.0
	golang.org/x/sys v0.36.0
	golang.org/x/term v0.35.0
	golang.org/x/text v0.17.0
	gotest.tools/gotestsum v1.13.0
)

require (
	github.com/bitfield/gotestdox v0.2.2 // indirect
	github.com/dlclark/regexp2 v1.11.0 // indirect
	github.com/dnephin/pflag v1.0.7 // indirect
	github.com/fatih/color v1.18.0 // indirect
	github.com/fsnotify/fsnotify v1.9.0 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mattn/go-colorable v0.1.13 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/sync v0.17.0 // indirect
	golang.org/x/tools v0.36.0 // indirect
)

tool (
	github.com/mcpeval/mcpeval/cmd/mcpeval
	gotest.tools/gotestsum
)
