package rest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/fworker/fworker/scheduler"
)

// events streams Backend.Events as Server-Sent Events (our extension,
// leader-only): one "event: <type>" and "data: <json>" pair per event,
// flushed at once, and a comment line every SSEKeepAlive while idle. The
// stream ends when the client goes away (the request context ends, and with
// it the Backend's channel) or the Backend closes the channel.
func (s *server) events(c *gin.Context) error {
	return s.onLeader(c, "", func() error {
		ctx := c.Request.Context()
		ch, err := s.b.Events(ctx)
		if err != nil {
			return err
		}
		w := c.Writer
		// A server WriteTimeout must not cut a long-lived stream.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("Connection", "keep-alive")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		w.Flush()

		var keepAlive <-chan time.Time
		if s.opts.SSEKeepAlive > 0 {
			t := time.NewTicker(s.opts.SSEKeepAlive)
			defer t.Stop()
			keepAlive = t.C
		}
		for {
			select {
			case <-ctx.Done():
				return nil
			case ev, ok := <-ch:
				if !ok {
					return nil
				}
				if err := writeEvent(w, ev); err != nil {
					return nil // the client is gone; nothing left to tell it
				}
			case <-keepAlive:
				if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
					return nil
				}
			}
			w.Flush()
		}
	})
}

// writeEvent writes one SSE message. The type cannot contain a line break
// (that would forge fields); JSON data never does.
func writeEvent(w io.Writer, ev scheduler.Event) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	typ := strings.NewReplacer("\r", " ", "\n", " ").Replace(ev.Type)
	if typ == "" {
		typ = "message"
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data)
	return err
}
