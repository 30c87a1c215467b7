package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/auth"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"
)

// pulsarConfig is the pulsaradmin configuration for our settings.
func (s settings) pulsarConfig(v config.APIVersion) *config.Config {
	return &config.Config{
		WebServiceURL:              s.AdminURL,
		TLSTrustCertsFilePath:      s.TLSTrustCertPath,
		TLSAllowInsecureConnection: s.TLSAllowInsecure,
		TLSCertFile:                s.TLSCertFile,
		TLSKeyFile:                 s.TLSKeyFile,
		Token:                      s.AuthToken,
		TokenFile:                  s.AuthTokenFile,
		PulsarAPIVersion:           v,
	}
}

// provider is pulsaradmin's auth provider (token, token file, TLS client
// certificate; with the TLS trust settings) wrapped so that it leaves the
// caller's request alone and, with --verbose, logs each round trip. Both
// the pulsaradmin clients and our own small client use it, so every
// request carries the same authentication.
type provider struct {
	inner auth.Provider
	log   io.Writer // nil: quiet
	mu    *sync.Mutex
}

func newProvider(s settings, logTo io.Writer) (*provider, error) {
	p, err := auth.GetAuthProvider(s.pulsarConfig(config.V2))
	if err != nil {
		return nil, fmt.Errorf("authentication settings: %w", err)
	}
	if p == nil {
		return nil, errors.New("authentication settings: no provider")
	}
	pr := &provider{inner: p, mu: &sync.Mutex{}}
	if s.Verbose {
		pr.log = logTo
	}
	return pr, nil
}

// RoundTrip sends a clone: the token provider adds its header to the
// request it is given, and a redirect would then repeat the header.
func (p *provider) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := p.inner.RoundTrip(req.Clone(req.Context()))
	if p.log != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch {
		case err != nil:
			fmt.Fprintf(p.log, "* %s %s: %v\n", req.Method, req.URL, err)
		case resp.Header.Get("Location") != "":
			fmt.Fprintf(p.log, "* %s %s -> %s Location: %s (%s)\n", req.Method, req.URL, resp.Status, resp.Header.Get("Location"), time.Since(start).Round(time.Millisecond))
		default:
			fmt.Fprintf(p.log, "* %s %s -> %s (%s)\n", req.Method, req.URL, resp.Status, time.Since(start).Round(time.Millisecond))
		}
	}
	return resp, err
}

func (p *provider) Transport() http.RoundTripper { return p.inner.Transport() }

func (p *provider) WithTransport(t http.RoundTripper) { p.inner.WithTransport(t) }

// maxRedirects bounds a redirect chain (a leader change during the call
// can add a hop).
const maxRedirects = 10

// checkRedirect follows a redirect only if it keeps the method: a 307 or
// 308 from a non-leader repeats a PUT as a PUT (Go re-sends the body of
// requests that can be replayed). A 301/302/303 that would turn a PUT or
// DELETE into a GET is refused rather than silently changing the call.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	first := via[0]
	if req.Method != first.Method {
		return fmt.Errorf("the server redirected %s %s to %s %s (status %d); not followed, since that changes the call",
			first.Method, first.URL, req.Method, req.URL, req.Response.StatusCode)
	}
	for _, h := range []string{"Accept", "X-Requested-By", "User-Agent"} {
		if v := first.Header.Get(h); v != "" && req.Header.Get(h) == "" {
			req.Header.Set(h, v)
		}
	}
	return nil
}
