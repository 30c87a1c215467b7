package rest

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"
)

// Log keys, stable across the package.
const (
	logMethod   = "method"
	logPath     = "path"
	logStatus   = "status"
	logDuration = "duration"
	logReason   = "reason"
	logError    = "error"
	logLeader   = "leader"
)

// server holds what every handler needs; it is immutable after New.
type server struct {
	b     Backend
	opts  Options
	log   *slog.Logger
	proxy *httputil.ReverseProxy
}

// New returns the HTTP handler of one worker: the Pulsar-compatible routes
// and our extensions (docs/api.md), answered from b.
func New(b Backend, opts Options) http.Handler {
	opts = opts.withDefaults()
	s := &server{b: b, opts: opts, log: opts.Log.With("component", "rest")}
	s.proxy = s.newProxy()

	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	e.Use(s.recoverer, s.logRequests, s.requireInitialized, markForwarded)
	e.NoRoute(func(c *gin.Context) {
		writeError(c.Writer, http.StatusNotFound, "Not Found")
	})
	e.NoMethod(func(c *gin.Context) {
		writeError(c.Writer, http.StatusMethodNotAllowed, "Method Not Allowed")
	})
	s.routes(e)
	return e
}

// recoverer turns a panic into a 500 {"reason": ...} and logs the stack.
func (s *server) recoverer(c *gin.Context) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler {
			panic(v)
		}
		s.log.Error("handler panic", logMethod, c.Request.Method, logPath, c.Request.URL.Path,
			logError, v, "stack", string(debug.Stack()))
		if !c.Writer.Written() {
			writeError(c.Writer, http.StatusInternalServerError, "Internal server error")
		}
		c.Abort()
	}()
	c.Next()
}

func (s *server) logRequests(c *gin.Context) {
	start := time.Now()
	c.Next()
	status := c.Writer.Status()
	level := slog.LevelDebug
	if status >= 500 {
		level = slog.LevelWarn
	}
	attrs := []any{logMethod, c.Request.Method, logPath, c.Request.URL.Path,
		logStatus, status, logDuration, time.Since(start)}
	if r, ok := c.Get(ctxReason); ok {
		attrs = append(attrs, logReason, r)
	}
	s.log.Log(c.Request.Context(), level, "request", attrs...)
}

// requireInitialized answers Pulsar's 503 on every route until the worker
// has joined and followed the cluster state.
func (s *server) requireInitialized(c *gin.Context) {
	if !s.b.Initialized() {
		s.fail(c, errNotInitialized)
		c.Abort()
		return
	}
	c.Next()
}

// markForwarded tells the Backend, through the request context, that
// another worker sent this request on a client's behalf (ForwardedHeader):
// it must answer from its own state and not forward again.
func markForwarded(c *gin.Context) {
	if c.GetHeader(ForwardedHeader) != "" {
		c.Request = c.Request.WithContext(WithForwarded(c.Request.Context()))
	}
	c.Next()
}

// ctxReason is the gin context key under which a failed request's reason is
// kept for the request log line.
const ctxReason = "rest.reason"

// fail answers err through the error table. ErrNotLeader redirects to the
// leader with the request's own path and query, unless the handler set a
// Pulsar-specific target with leaderTarget.
func (s *server) fail(c *gin.Context, err error) {
	if isNotLeader(err) {
		s.redirectToLeader(c, c.GetString(ctxLeaderTarget))
		return
	}
	status, reason := statusOf(err)
	c.Set(ctxReason, reason)
	writeError(c.Writer, status, reason)
}

// writeJSON writes v as application/json, the content type the Java worker
// uses for bodies and errors alike.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(errorBody{Reason: "encoding response: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func noContent(c *gin.Context) { c.Status(http.StatusNoContent); c.Writer.WriteHeaderNow() }
