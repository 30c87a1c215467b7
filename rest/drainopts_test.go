package rest

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fworker/fworker/drain"
)

func TestDrainOptionErrors(t *testing.T) {
	long := strings.Repeat("x", 1025)
	cases := []struct {
		query, hdr, reason string
	}{
		{"deadline=soon", "", `Invalid drain option deadline: "soon" is neither an RFC 3339 time nor a duration such as 10m`},
		{"deadline=-5m", "", `Invalid drain option deadline: duration "-5m" must be positive`},
		{"deadline=0s", "", `Invalid drain option deadline: duration "0s" must be positive`},
		{"deadline=2020-01-01T00:00:00Z", "", `Invalid drain option deadline: must be in the future`},
		{"deadline=2026-13-01T00:00:00Z", "", `Invalid drain option deadline: "2026-13-01T00:00:00Z" is neither an RFC 3339 time nor a duration such as 10m`},
		{"deadline=10m&deadline=20m", "", `Invalid drain option deadline: is given 2 times`},
		{"force=maybe", "", `Invalid drain option force: "maybe" is not a boolean (true or false)`},
		{"maxParallel=x", "", `Invalid drain option maxParallel: "x" is not an integer`},
		{"maxParallel=1.5", "", `Invalid drain option maxParallel: "1.5" is not an integer`},
		{"maxParallel=99999999999999999999", "", `Invalid drain option maxParallel: "99999999999999999999" is not an integer`},
		{"maxParallel=-1", "", `Invalid drain option maxParallel: must not be negative`},
		{"reason=" + long, "", `Invalid drain option reason: is longer than 1024 bytes`},
		{"reason=%ff", "", `Invalid drain option reason: is not valid UTF-8`},
		{"", strings.Repeat("y", 257), `Invalid drain option requestedBy: is longer than 256 bytes`},
		{"requestedBy=a&requestedBy=b", "", `Invalid drain option requestedBy: is given 2 times`},
		{"force=true;x", "", `Invalid query string: invalid semicolon separator in query`},
	}
	for _, tc := range cases {
		f := newFake()
		f.DrainFn = func(context.Context, string, drain.Options) error {
			t.Errorf("%s: drain called", tc.query)
			return nil
		}
		h := New(f, Options{Now: func() time.Time { return t0 }})
		for _, path := range []string{"/admin/v2/worker/leader/drain?workerId=w2&", "/admin/worker/drain?"} {
			w := serve(t, h, "PUT", path+tc.query, nil, "X-Requested-By", tc.hdr)
			if w.Code != 400 {
				t.Errorf("%s: status %d, want 400", tc.query, w.Code)
				continue
			}
			if got := reasonOf(t, w); got != tc.reason {
				t.Errorf("%s: reason\n got %s\nwant %s", tc.query, got, tc.reason)
			}
		}
	}
}

// FuzzDrainQuery: whatever the query and X-Requested-By header, the drain
// route never panics and never answers 5xx; a 204 passed options that
// drain.Options.Validate accepts.
//
//	go test -run '^$' -fuzz FuzzDrainQuery -fuzztime 20s ./rest
func FuzzDrainQuery(f *testing.F) {
	for _, seed := range []string{
		"", "workerId=w2", "workerId=w2&deadline=10m&force=true&maxParallel=3&reason=x",
		"deadline=2026-05-01T13:00:00Z", "deadline=2026-05-01T13:00:00.123456789+02:00",
		"deadline=-1h", "deadline=9223372036854775807ns", "deadline=99999h", "force", "force=T",
		"maxParallel=-0", "maxParallel=+3", "reason=%ff%fe", "a=%zz", "workerId=%00", ";;&&==",
		"deadline=10m&deadline=", "requestedBy=" + strings.Repeat("é", 200),
	} {
		f.Add(seed, "")
	}
	f.Add("workerId=w2", "ops\r\nX: y")

	fake := newFake()
	var got drain.Options
	fake.DrainFn = func(_ context.Context, _ string, o drain.Options) error { got = o; return nil }
	h := New(fake, Options{Now: func() time.Time { return t0 }})

	f.Fuzz(func(t *testing.T, query, requestedBy string) {
		got = drain.Options{}
		r := httptest.NewRequest("PUT", "/admin/v2/worker/leader/drain", nil)
		r.URL.RawQuery = query
		if requestedBy != "" {
			r.Header.Set(hdrRequestedBy, requestedBy)
		}
		w := record(h, r)
		switch {
		case w.Code == 204:
			if err := got.Validate(t0); err != nil {
				t.Fatalf("%q: accepted invalid options %+v: %v", query, got, err)
			}
		case w.Code >= 400 && w.Code < 500:
			var e errorBody
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Reason == "" {
				t.Fatalf("%q: %d with body %q", query, w.Code, w.Body.String())
			}
		default:
			t.Fatalf("%q: status %d: %s", query, w.Code, w.Body.String())
		}
	})
}
