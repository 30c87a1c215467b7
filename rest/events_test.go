package rest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fworker/fworker/scheduler"
)

func TestEventsStream(t *testing.T) {
	f := newFake()
	ended := make(chan struct{})
	f.EventsFn = func(ctx context.Context) (<-chan scheduler.Event, error) {
		ch := make(chan scheduler.Event)
		go func() {
			defer close(ended)
			defer close(ch)
			for _, ev := range []scheduler.Event{
				{Time: t0, Type: scheduler.EvDrainStarted, Worker: "w2", Detail: "3 instances"},
				{Time: t0.Add(time.Second), Type: scheduler.EvMoveStarted, Worker: "w2", Instance: "public/default/f1:0"},
			} {
				select {
				case ch <- ev:
				case <-ctx.Done():
					return
				}
			}
			<-ctx.Done() // an idle stream, until the client leaves
		}()
		return ch, nil
	}
	srv := httptest.NewServer(New(f, Options{}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/admin/v2/worker/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	sc := bufio.NewScanner(resp.Body)
	var got []string
	for len(got) < 2 && sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, ":") {
			continue
		}
		typ, ok := strings.CutPrefix(line, "event: ")
		if !ok || !sc.Scan() {
			t.Fatalf("want an event line, got %q", line)
		}
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			t.Fatalf("want a data line, got %q", sc.Text())
		}
		var ev scheduler.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil || ev.Type != typ {
			t.Fatalf("data %q for event %q: %v", data, typ, err)
		}
		got = append(got, typ+" "+ev.Worker+" "+ev.Instance)
	}
	want := []string{"drain-started w2 ", "move-started w2 public/default/f1:0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q, want %q", got, want)
	}

	cancel()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the Backend's event context did not end after the client left")
	}
}

func TestEventsFormat(t *testing.T) {
	var b strings.Builder
	ev := scheduler.Event{Time: t0, Type: "evil\r\nevent: forged", Detail: "line1\nline2"}
	if err := writeEvent(&b, ev); err != nil {
		t.Fatal(err)
	}
	want := "event: evil  event: forged\n" +
		`data: {"time":"2026-05-01T12:00:00Z","type":"evil\r\nevent: forged","detail":"line1\nline2"}` + "\n\n"
	if b.String() != want {
		t.Fatalf("got %q\nwant %q", b.String(), want)
	}
}

func TestEventsKeepAlive(t *testing.T) {
	f := newFake()
	f.EventsFn = func(ctx context.Context) (<-chan scheduler.Event, error) {
		ch := make(chan scheduler.Event)
		go func() { <-ctx.Done(); close(ch) }()
		return ch, nil
	}
	srv := httptest.NewServer(New(f, Options{SSEKeepAlive: 10 * time.Millisecond}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/admin/worker/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	if !sc.Scan() || sc.Text() != ": keep-alive" {
		t.Fatalf("first line %q, want a keep-alive comment", sc.Text())
	}
}

func TestEventsRoutes(t *testing.T) {
	runRouteCases(t, mounts, []routeCase{
		{name: "follower", method: "GET", path: "/worker/events", status: 307,
			setup: asFollower(nil), location: "http://host-1:6750%s/worker/events"},
		{name: "backend refuses", method: "GET", path: "/worker/events", status: 503, reason: notInit,
			setup: func(f *fakeBackend) {
				f.EventsFn = func(context.Context) (<-chan scheduler.Event, error) { return nil, scheduler.ErrNotReady }
			}},
	})
}
