package rest

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"
)

// ctxLeaderTarget is the gin context key holding the path and query a
// non-leader redirects a leader-only call to; empty means the request's own.
const ctxLeaderTarget = "rest.leaderTarget"

func isNotLeader(err error) bool { return errors.Is(err, ErrNotLeader) }

// onLeader runs fn if this worker is the leader. Otherwise, and if fn
// finds that leadership was lost (ErrNotLeader), the request is redirected
// to the leader at target (path and query; "" keeps the request's own).
func (s *server) onLeader(c *gin.Context, target string, fn func() error) error {
	if target != "" {
		c.Set(ctxLeaderTarget, target)
	}
	if !s.b.IsLeader() {
		return ErrNotLeader
	}
	return fn()
}

// leaderTarget is Pulsar's redirect target for the drain family:
// /admin/v2/worker/leader/<op>?workerId=<resolved id>, always the leader
// form and always the v2 mount, whatever the request used. Our extension
// parameters (drain options) follow workerId, in a stable order.
func leaderTarget(op, worker string, q url.Values) string {
	t := "/admin/v2/worker/leader/" + op + "?workerId=" + url.QueryEscape(worker)
	rest := url.Values{}
	for k, v := range q {
		if k != "workerId" {
			rest[k] = v
		}
	}
	if len(rest) > 0 {
		t += "&" + rest.Encode()
	}
	return t
}

// leaderBase is the leader's scheme://host:port. A leader that cannot be
// determined, or that is this very worker (which just said it is not the
// leader), is ErrNoLeader: redirecting would loop.
func (s *server) leaderBase(scheme string) (*url.URL, error) {
	l, ok := s.b.Leader()
	if !ok || l.Hostname == "" || l.Port <= 0 || l.ID == s.b.Self().ID {
		return nil, ErrNoLeader
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(l.Hostname, strconv.Itoa(l.Port))}, nil
}

// redirectScheme: Options.Scheme, else the incoming request's, as the Java
// worker builds the Location from the request URI.
func (s *server) redirectScheme(r *http.Request) string {
	if s.opts.Scheme != "" {
		return s.opts.Scheme
	}
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// redirectToLeader answers 307 Temporary Redirect, so that the client
// repeats the same method (PUT stays PUT) at the leader.
func (s *server) redirectToLeader(c *gin.Context, target string) {
	base, err := s.leaderBase(s.redirectScheme(c.Request))
	if err != nil {
		status, reason := statusOf(err)
		c.Set(ctxReason, reason)
		writeError(c.Writer, status, reason)
		return
	}
	if target == "" {
		target = c.Request.URL.RequestURI()
	}
	loc := base.String() + target
	s.log.Debug("redirect to leader", logMethod, c.Request.Method, logPath, c.Request.URL.Path, logLeader, base.Host)
	c.Header("Location", loc)
	c.Status(http.StatusTemporaryRedirect)
	c.Writer.WriteHeaderNow()
}
