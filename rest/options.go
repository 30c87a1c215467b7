package rest

import (
	"log/slog"
	"net/http"
	"time"
)

// Options configure the handler. The zero value is usable.
type Options struct {
	// Log receives one line per request (Debug; Warn for 5xx) and every
	// recovered panic. Nil discards.
	Log *slog.Logger
	// MaxBodyBytes bounds a function create/update upload (the whole
	// multipart body). Default 64 MiB.
	MaxBodyBytes int64
	// MaxJSONBytes bounds the functionConfig and updateOptions parts.
	// Default 1 MiB.
	MaxJSONBytes int64
	// Scheme, when set ("http" or "https"), is used in the Location of
	// redirects to the leader and to reach the leader when proxying. When
	// empty, redirects keep the scheme of the incoming request (as the Java
	// worker does) and the proxy uses http.
	Scheme string
	// HTTPClient's Transport carries function writes proxied to the leader.
	// Nil means http.DefaultTransport. Its Timeout is not applied: a proxied
	// request lives as long as the incoming one.
	HTTPClient *http.Client
	// Config is the non-secret configuration shown by GET /config, next to
	// this worker's workerId, workerHostname and workerPort.
	Config map[string]any
	// SSEKeepAlive is the interval of comment lines on an idle event
	// stream, so that proxies keep it open. Default 15s; negative disables.
	SSEKeepAlive time.Duration
	// Now is the clock for relative drain deadlines. Default time.Now.
	Now func() time.Time
}

const (
	defaultMaxBodyBytes = 64 << 20
	defaultMaxJSONBytes = 1 << 20
	defaultKeepAlive    = 15 * time.Second
	// multipartMemory is what an upload may hold in memory; the rest of
	// the file part spills to a temporary file.
	multipartMemory = 8 << 20
)

func (o Options) withDefaults() Options {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = defaultMaxBodyBytes
	}
	if o.MaxJSONBytes <= 0 {
		o.MaxJSONBytes = defaultMaxJSONBytes
	}
	if o.SSEKeepAlive == 0 {
		o.SSEKeepAlive = defaultKeepAlive
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
