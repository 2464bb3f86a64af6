// Command marrvel-sample runs the sample MARRVEL-like MCP server (package
// sampleserver), which answers from an embedded fixture dataset and needs no
// internet.
//
// By default it serves MCP over stdio. With -http ADDR (for example
// -http 127.0.0.1:8080) it serves streamable HTTP at http://ADDR/mcp; port 0
// picks a free port. Either way it writes one start-up line to stderr (with
// the actual URL in HTTP mode) and, in stdio mode, nothing but MCP messages
// to stdout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP at this address (e.g. 127.0.0.1:8080) at path /mcp instead of stdio")
	flag.Parse()
	if err := run(*httpAddr); err != nil {
		fmt.Fprintf(os.Stderr, "marrvel-sample: %v\n", err)
		os.Exit(1)
	}
}

func run(httpAddr string) error {
	s := sampleserver.New()
	if httpAddr == "" {
		fmt.Fprintf(os.Stderr, "marrvel-sample %s: serving MCP over stdio\n", sampleserver.Version)
		if err := server.ServeStdio(s, server.WithWorkerPoolSize(64)); err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("serve stdio: %w", err)
		}
		return nil
	}
	return serveHTTP(s, httpAddr)
}

func serveHTTP(s *server.MCPServer, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	fmt.Fprintf(os.Stderr, "marrvel-sample %s: serving MCP over streamable HTTP at http://%s/mcp\n", sampleserver.Version, ln.Addr())

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shut down http server: %w", err)
	}
	return nil
}
