package mcpconn

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// resultText flattens a tool result into what a host shows the model: its
// content blocks in order (an image or audio block, a binary resource, by
// what it is), and its structuredContent as JSON when it has no content.
// Embedded resources and resource links keep their URI, name, MIME type
// and size; the links are also returned, for the model to follow.
func resultText(res *mcp.CallToolResult) (string, []eval.ResourceLink) {
	var parts []string
	var links []eval.ResourceLink
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			parts = append(parts, c.Text)
		case mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d base64 bytes]", c.MIMEType, len(c.Data)))
		case mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d base64 bytes]", c.MIMEType, len(c.Data)))
		case mcp.EmbeddedResource:
			parts = append(parts, resourceText(c.Resource))
		case mcp.ResourceLink:
			link := eval.ResourceLink{URI: c.URI, Name: c.Name, MIMEType: c.MIMEType}
			links = append(links, link)
			parts = append(parts, linkText(link, c.Description, c.Size))
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return sanitize(strings.Join(parts, "\n")), links
}

// resourceText shows a resource's contents: a header with its URI, name,
// MIME type and size, then its text; a binary resource by its header
// alone.
func resourceText(r mcp.ResourceContents) string {
	switch r := r.(type) {
	case mcp.TextResourceContents:
		return resourceHeader(r.URI, r.MIMEType, len(r.Text), "") + "\n" + r.Text
	case mcp.BlobResourceContents:
		if text, ok := blobText(r); ok {
			return resourceHeader(r.URI, r.MIMEType, len(text), "") + "\n" + text
		}
		return resourceHeader(r.URI, r.MIMEType, blobSize(r.Blob), "binary, not shown")
	}
	return "[resource]"
}

// resourceHeader reads `[resource report.csv <file:///data/report.csv>,
// text/csv, 1,204 bytes]`: the resource's name is the last element of its
// URI's path (MCP's resource contents carry no other).
func resourceHeader(uri, mime string, size int, note string) string {
	parts := []string{"resource " + resourceName(uri) + " <" + uri + ">"}
	if mime != "" {
		parts = append(parts, mime)
	}
	parts = append(parts, strconv.Itoa(size)+" bytes")
	if note != "" {
		parts = append(parts, note)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// linkText reads `[resource link "Text Resource 2" <demo://text/2>,
// text/plain, 21 bytes: a plaintext resource]`.
func linkText(l eval.ResourceLink, description string, size *int64) string {
	parts := []string{"resource link " + strconv.Quote(l.Name) + " <" + l.URI + ">"}
	if l.MIMEType != "" {
		parts = append(parts, l.MIMEType)
	}
	if size != nil {
		parts = append(parts, strconv.FormatInt(*size, 10)+" bytes")
	}
	text := "[" + strings.Join(parts, ", ")
	if description != "" {
		text += ": " + description
	}
	return text + "]"
}

func resourceName(uri string) string {
	name := uri
	if i := strings.Index(uri, "://"); i >= 0 {
		name = uri[i+3:]
	}
	if base := path.Base(strings.TrimRight(name, "/")); base != "." && base != "/" {
		return base
	}
	return name
}

// blobText is the text of a binary resource whose MIME type says it is
// text (text/*, JSON, XML) and whose bytes are UTF-8.
func blobText(r mcp.BlobResourceContents) (string, bool) {
	mime := strings.ToLower(r.MIMEType)
	if !strings.HasPrefix(mime, "text/") && !strings.Contains(mime, "json") && !strings.Contains(mime, "xml") {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(r.Blob))
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// blobSize is the number of bytes a padded base64 text decodes to.
func blobSize(b64 string) int {
	b64 = strings.TrimSpace(b64)
	return max(0, len(b64)/4*3+len(b64)%4*3/4-(len(b64)-len(strings.TrimRight(b64, "="))))
}
