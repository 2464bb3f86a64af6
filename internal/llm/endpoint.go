package llm

import (
	"net/http"
	"net/url"
	"strings"
)

// AzureAPIVersion is the api-version sent to an Azure OpenAI deployment
// whose URL names none (the newest generally available one).
const AzureAPIVersion = "2024-10-21"

// endpoint is where a base URL sends chat requests and how it carries
// the key.
//
//   - An OpenAI-compatible base (https://openrouter.ai/api/v1,
//     http://localhost:11434/v1, Azure's v1 route
//     https://R.openai.azure.com/openai/v1): base/chat/completions and
//     base/models, the key as a Bearer token.
//   - An Azure OpenAI deployment
//     (https://R.openai.azure.com/openai/deployments/D?api-version=V):
//     .../deployments/D/chat/completions?api-version=V, the key in the
//     api-key header; no model list.
//   - An Azure OpenAI resource (https://R.openai.azure.com, optionally with
//     ?api-version=V): the model names the deployment.
type endpoint struct {
	base  string // scheme, host and path, without a trailing slash
	query url.Values
	azure azureKind
}

type azureKind int

const (
	notAzure azureKind = iota
	azureDeployment
	azureResource
)

// endpointOf reads a base URL.
func endpointOf(baseURL string) endpoint {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		return endpoint{base: strings.TrimSuffix(baseURL, "/")}
	}
	e := endpoint{query: u.Query()}
	u.RawQuery, u.Fragment = "", ""
	path := strings.TrimSuffix(u.Path, "/")
	host := strings.ToLower(u.Hostname())
	azureHost := strings.HasSuffix(host, ".openai.azure.com") || strings.HasSuffix(host, ".cognitiveservices.azure.com") ||
		strings.HasSuffix(host, ".services.ai.azure.com")
	switch {
	case strings.Contains(path, "/openai/deployments/"):
		e.azure = azureDeployment
		path = strings.TrimSuffix(path, "/chat/completions")
	case azureHost && (path == "" || path == "/openai"):
		e.azure = azureResource
		path = ""
	}
	if e.azure != notAzure && e.query.Get("api-version") == "" {
		e.query.Set("api-version", AzureAPIVersion)
	}
	u.Path, u.RawPath = path, ""
	e.base = u.String()
	return e
}

// chatURL is where a chat request for model goes.
func (e endpoint) chatURL(model string) string {
	base := e.base
	if e.azure == azureResource {
		base += "/openai/deployments/" + url.PathEscape(model)
	}
	return withQuery(base+"/chat/completions", e.query)
}

// modelsURL is where the endpoint lists its models, or "" when it has no
// list (an Azure deployment or resource).
func (e endpoint) modelsURL() string {
	if e.azure != notAzure {
		return ""
	}
	return withQuery(e.base+"/models", e.query)
}

// authorize puts key where the endpoint expects it.
func (e endpoint) authorize(h http.Header, key string) {
	if e.azure != notAzure {
		h.Set("api-key", key)
		return
	}
	h.Set("Authorization", "Bearer "+key)
}

func withQuery(u string, q url.Values) string {
	if len(q) == 0 {
		return u
	}
	return u + "?" + q.Encode()
}
