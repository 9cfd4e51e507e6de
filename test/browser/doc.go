// Package browser tests the dashboard in real headless Chromium, driven by
// chromedp, against the whole service booted by apptest: each test signs
// in through the pages, clicks and types as a person would, checks what
// the pages show and what the API then answers, fails on any console error,
// and saves screenshots of the pages it visits.
package browser
