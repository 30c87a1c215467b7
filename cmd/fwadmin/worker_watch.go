package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// event is one message of the events stream (the scheduler's Event).
type event struct {
	Time     time.Time `json:"time"`
	Type     string    `json:"type"`
	Worker   string    `json:"workerId,omitempty"`
	Instance string    `json:"instance,omitempty"`
	Detail   string    `json:"detail,omitempty"`
}

type watchFlags struct {
	timeout  time.Duration
	workerID string
	output   string
}

func watchCmd(a *app) *cobra.Command {
	var f watchFlags
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Follow the cluster's events as they happen",
		Long: `Follow the leader's event stream (GET /admin/v2/worker/events, Server-Sent
Events, an fworker extension): workers joining and leaving, cordons,
scheduling, moves, drains, rebalances. One line per event until Ctrl-C or
--timeout (both exit 0). When the stream ends (a leader change), fwadmin
connects again.`,
		Example: `  fwadmin functions-worker watch
  fwadmin functions-worker watch --worker-id standalone-1 --timeout 10m
  fwadmin functions-worker watch -o json | jq .detail`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runWatch(cmd.Context(), f) },
	}
	cmd.Flags().DurationVar(&f.timeout, "timeout", 0, "stop after this long (0: until Ctrl-C)")
	workerIDFlag(a, cmd, &f.workerID, false, "only show events about this worker")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", `"text" (one line per event) or "json" (one JSON object per line)`)
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", outJSON}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (a *app) runWatch(parent context.Context, f watchFlags) error {
	if f.output != "text" && f.output != outJSON {
		return fmt.Errorf(`--output %q: want "text" or "json"`, f.output)
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	ctx, cancel := parent, context.CancelFunc(func() {})
	if f.timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, f.timeout)
	}
	defer cancel()
	for connected := false; ; {
		err := a.watchOnce(ctx, c.api, f, func() { connected = true })
		if ctx.Err() != nil {
			return nil // Ctrl-C or --timeout: a normal end
		}
		if err != nil && (!connected || !transient(err)) {
			return err // a first connection that fails is a wrong URL, not a leader change
		}
		msg := "stream ended"
		if err != nil {
			msg = err.Error()
		}
		fmt.Fprintf(a.stderr, "watch: %s; connecting again\n", msg)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

// watchOnce follows one connection until it ends; connected is called
// once the stream is open.
func (a *app) watchOnce(ctx context.Context, c *apiClient, f watchFlags, connected func()) error {
	resp, err := c.send(ctx, http.MethodGet, pathEvents, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return fmt.Errorf("GET %s: expected an event stream, got %q", pathEvents, ct)
	}
	connected()
	return readSSE(resp.Body, func(typ string, data []byte) error {
		var ev event
		if err := json.Unmarshal(data, &ev); err != nil {
			ev = event{Type: typ, Detail: string(data)}
		}
		if ev.Type == "" {
			ev.Type = typ
		}
		if f.workerID != "" && ev.Worker != f.workerID {
			return nil
		}
		if f.output == outJSON {
			_, err := fmt.Fprintf(a.stdout, "%s\n", compactJSON(data))
			return err
		}
		_, err := fmt.Fprintln(a.stdout, eventLine(ev))
		return err
	})
}

// eventLine is the text form of an event:
//
//	2026-05-20T10:00:01.250Z drain-started standalone-1 2 instance(s) to move
func eventLine(ev event) string {
	parts := []string{ev.Time.UTC().Format("2006-01-02T15:04:05.000Z"), ev.Type}
	for _, s := range []string{ev.Worker, ev.Instance, ev.Detail} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

func compactJSON(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// readSSE reads Server-Sent Events from r and calls fn with each event's
// type ("message" if none) and data (data lines joined by newlines).
// Comments (": keep-alive") and events without data are skipped. It
// returns nil at the end of the stream.
func readSSE(r io.Reader, fn func(typ string, data []byte) error) error {
	br := newLineReader(r)
	typ, data, has := "", []byte(nil), false
	for {
		line, err := br.line()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch {
		case line == "":
			if has {
				if typ == "" {
					typ = "message"
				}
				if err := fn(typ, data); err != nil {
					return err
				}
			}
			typ, data, has = "", nil, false
		case strings.HasPrefix(line, ":"):
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				typ = value
			case "data":
				if has {
					data = append(data, '\n')
				}
				data, has = append(data, value...), true
			}
		}
	}
}
