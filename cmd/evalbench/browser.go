package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
)

// openInChromium opens a report in headless Chromium (a 1400×1000
// window) and measures how long it takes to be ready to use: its table
// shown and the whole page parsed, so that every control and every case
// works (a large report's data, compressed, is inflated and decoded whole
// before its table shows: sorting, filtering and searching work on all of
// it; the table renders its first rows, and more as it scrolls); then how
// long opening the last row shown takes, until its conversation is shown.
// Without a Chromium, ready is negative.
func openInChromium(path string) (ready, opened time.Duration, err error) {
	exe := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		return -1, -1, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, 0, err
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1400, 1000))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()
	// Navigate returns once the page has loaded; the page's own clock
	// (from the start of the navigation) says when the table was first
	// shown (the report marks it) and when the document was complete.
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs)); err != nil {
		return 0, 0, fmt.Errorf("open %s: %w", abs, err)
	}
	// The load event can come before the table is shown (the overview
	// inflates asynchronously): the mark is waited for, up to 30 s.
	type shown struct{ MS float64 }
	waitCtx, cancelWait := context.WithTimeout(ctx, 30*time.Second)
	defer cancelWait()
	got, err := chromedp.Run(waitCtx, chromedp.Poll[shown](`(() => {
		const table = performance.getEntriesByName('mcpeval:table-shown')[0];
		const nav = performance.getEntriesByType('navigation')[0];
		if (!table || !nav || !nav.domComplete || !document.querySelector('#cases tbody tr[data-id]')) return null;
		return {MS: Math.max(table.startTime, nav.domComplete)};
	})()`, chromedp.WithPollingInterval(5*time.Millisecond)))
	if err != nil {
		return 0, 0, fmt.Errorf("%s: the report shows no table: %w", abs, err)
	}
	ready = time.Duration(got.MS * float64(time.Millisecond))
	start := time.Now()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#cases tbody tr[data-id]:last-child').click()`)); err != nil {
		return ready, 0, err
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.querySelectorAll('#detail .msg').length > 0`,
		chromedp.WithPollingInterval(5*time.Millisecond))); err != nil {
		return ready, 0, fmt.Errorf("waiting for a case to open: %w", err)
	}
	return ready, time.Since(start), nil
}
