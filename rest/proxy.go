package rest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"

	"github.com/gin-gonic/gin"
)

// A proxied function write carries ForwardedHeader (forwarded.go) with the
// forwarder's worker id. A forwarded request that again lands on a
// non-leader is refused rather than forwarded on, so two workers that each
// think the other leads cannot bounce a request forever.

type proxyTargetKey struct{}

// newProxy builds the one reverse proxy that carries function writes from a
// non-leader to the leader; the leader's address rides in the request
// context. Method, path, query, body and end-to-end headers pass unchanged.
func (s *server) newProxy() *httputil.ReverseProxy {
	var transport http.RoundTripper = http.DefaultTransport
	if s.opts.HTTPClient != nil && s.opts.HTTPClient.Transport != nil {
		transport = s.opts.HTTPClient.Transport
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(pr.In.Context().Value(proxyTargetKey{}).(*url.URL))
			pr.SetXForwarded()
			pr.Out.Header.Set(ForwardedHeader, s.b.Self().ID)
		},
		Transport: transport,
		ErrorLog:  slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			target := r.Context().Value(proxyTargetKey{}).(*url.URL)
			s.log.Warn("proxy to leader failed", logMethod, r.Method, logPath, r.URL.Path,
				logLeader, target.Host, logError, err)
			writeError(w, http.StatusBadGateway, fmt.Sprintf("Cannot reach the leader at %s: %v", target.Host, err))
		},
	}
}

// proxyToLeader forwards the request, body unread, to the leader.
func (s *server) proxyToLeader(c *gin.Context) error {
	if IsForwarded(c.Request.Context()) {
		return &reqError{status: http.StatusServiceUnavailable, reason: fmt.Sprintf(
			"Worker %s received a forwarded request but is not the leader either; leadership is changing, please try again",
			s.b.Self().ID)}
	}
	scheme := s.opts.Scheme
	if scheme == "" {
		scheme = "http"
	}
	base, err := s.leaderBase(scheme)
	if err != nil {
		return err
	}
	s.log.Debug("proxy to leader", logMethod, c.Request.Method, logPath, c.Request.URL.Path, logLeader, base.Host)
	r := c.Request.WithContext(context.WithValue(c.Request.Context(), proxyTargetKey{}, base))
	s.proxy.ServeHTTP(proxyWriter{c.Writer}, r)
	return nil
}

// proxyWriter shows the proxy only the writer's plain methods: gin's writer
// claims http.CloseNotifier and panics when the underlying writer lacks it.
type proxyWriter struct{ w gin.ResponseWriter }

func (p proxyWriter) Header() http.Header         { return p.w.Header() }
func (p proxyWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p proxyWriter) WriteHeader(status int)      { p.w.WriteHeader(status) }
func (p proxyWriter) Flush()                      { p.w.Flush() }
