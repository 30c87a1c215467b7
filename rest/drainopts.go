package rest

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/fworker/fworker/drain"
)

// Drain options travel as query parameters of the PUT drain routes, our
// extension to Pulsar's contract (docs/api.md, "Drain options").
const (
	qWorkerID    = "workerId"
	qDeadline    = "deadline"
	qForce       = "force"
	qMaxParallel = "maxParallel"
	qReason      = "reason"
	qRequestedBy = "requestedBy"

	// hdrRequestedBy names the requester when the query does not.
	hdrRequestedBy = "X-Requested-By"

	maxReasonBytes      = 1024
	maxRequestedByBytes = 256
)

// parseQuery parses a raw query strictly: a malformed one is a 400, not a
// silently shortened map.
func parseQuery(raw string) (url.Values, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, badRequest("Invalid query string: %v", err)
	}
	return q, nil
}

func invalidOption(name, format string, args ...any) error {
	return &drain.InvalidOptionError{Option: name, Detail: fmt.Sprintf(format, args...)}
}

// single returns the one value of parameter name; a repeated parameter is
// an error, since which one was meant is a guess.
func single(q url.Values, name string) (string, bool, error) {
	vs, ok := q[name]
	if !ok {
		return "", false, nil
	}
	if len(vs) != 1 {
		return "", true, invalidOption(name, "is given %d times", len(vs))
	}
	return vs[0], true, nil
}

// parseDrainOptions reads deadline, force, maxParallel, reason and
// requestedBy from q. requestedBy defaults to the X-Requested-By header,
// then to the client's address. Every error is a *drain.InvalidOptionError
// naming the parameter (400).
func parseDrainOptions(q url.Values, r *http.Request, now time.Time) (drain.Options, error) {
	var o drain.Options

	if v, ok, err := single(q, qDeadline); err != nil {
		return o, err
	} else if ok && v != "" {
		d, err := parseDeadline(v, now)
		if err != nil {
			return o, err
		}
		o.Deadline = d
	}

	if v, ok, err := single(q, qForce); err != nil {
		return o, err
	} else if ok {
		o.Force = true // a bare ?force means true
		if v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return o, invalidOption(qForce, "%q is not a boolean (true or false)", v)
			}
			o.Force = b
		}
	}

	if v, ok, err := single(q, qMaxParallel); err != nil {
		return o, err
	} else if ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return o, invalidOption(qMaxParallel, "%q is not an integer", v)
		}
		o.MaxParallel = n
	}

	if v, _, err := single(q, qReason); err != nil {
		return o, err
	} else if err := checkText(qReason, v, maxReasonBytes); err != nil {
		return o, err
	} else {
		o.Reason = v
	}

	by, _, err := single(q, qRequestedBy)
	if err != nil {
		return o, err
	}
	if by == "" {
		by = r.Header.Get(hdrRequestedBy)
	}
	if by == "" {
		by = clientAddr(r)
	}
	if err := checkText(qRequestedBy, by, maxRequestedByBytes); err != nil {
		return o, err
	}
	o.RequestedBy = by

	if err := o.Validate(now); err != nil {
		return o, err
	}
	return o, nil
}

// parseDeadline accepts an RFC 3339 time or a positive Go duration counted
// from now; the result is absolute, so it survives a leader failover.
func parseDeadline(v string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return time.Time{}, invalidOption(qDeadline, "%q is neither an RFC 3339 time nor a duration such as 10m", v)
	}
	if d <= 0 {
		return time.Time{}, invalidOption(qDeadline, "duration %q must be positive", v)
	}
	return now.Add(d), nil
}

func checkText(name, v string, limit int) error {
	if len(v) > limit {
		return invalidOption(name, "is longer than %d bytes", limit)
	}
	if !utf8.ValidString(v) {
		return invalidOption(name, "is not valid UTF-8")
	}
	return nil
}

func clientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
