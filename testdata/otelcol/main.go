// Command otelcol is an OpenTelemetry Collector with only what the test of
// the suite's trace export needs (TestOTelCollector in internal/suite, run
// by make test-otel): the OTLP receiver (gRPC and HTTP) and contrib's file
// exporter, which writes what it receives as OTLP JSON lines. A module of
// its own keeps the collector's dependencies out of mcpeval's go.mod.
package main

import (
	"fmt"
	"os"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func main() {
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol", Description: "OpenTelemetry Collector for mcpeval's tests", Version: "test"},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
				DefaultScheme:     "env",
			},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "otelcol:", err)
		os.Exit(1)
	}
}

func components() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, fmt.Errorf("receivers: %w", err)
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, fmt.Errorf("exporters: %w", err)
	}
	return otelcol.Factories{Receivers: receivers, Exporters: exporters, Telemetry: otelconftelemetry.NewFactory()}, nil
}
