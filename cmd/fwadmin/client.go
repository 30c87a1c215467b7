package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"strings"

	"github.com/apache/pulsar-client-go/pulsaradmin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"
)

// clients are built once per run from the settings.
type clients struct {
	v2  pulsaradmin.Client // worker calls: /admin/v2/worker, /admin/v2/worker-stats
	v3  pulsaradmin.Client // functions: /admin/v3/functions
	api *apiClient         // the calls pulsaradmin does not have
}

func (a *app) client() (*clients, error) {
	if a.clients != nil {
		return a.clients, nil
	}
	if _, err := url.ParseRequestURI(a.cfg.AdminURL); err != nil || !strings.Contains(a.cfg.AdminURL, "://") {
		return nil, fmt.Errorf("--admin-url %q is not an http(s) URL", a.cfg.AdminURL)
	}
	p, err := newProvider(a.cfg, a.stderr)
	if err != nil {
		return nil, err
	}
	v2, err := admin.NewPulsarClientWithAuthProvider(a.cfg.pulsarConfig(config.V2), p)
	if err != nil {
		return nil, err
	}
	v3, err := admin.NewPulsarClientWithAuthProvider(a.cfg.pulsarConfig(config.V3), p)
	if err != nil {
		return nil, err
	}
	a.clients = &clients{v2: v2, v3: v3, api: &apiClient{
		base:        a.cfg.AdminURL,
		hc:          &http.Client{Transport: p, CheckRedirect: checkRedirect},
		requestedBy: requester(),
	}}
	return a.clients, nil
}

// apiClient makes the requests pulsaradmin has no method for: drain and
// its status, undrain, cordon, rebalance, the drains list, the events
// stream. Errors are rest.Error values decoded from {"reason": ...}, the
// same way pulsaradmin decodes them. It has no overall timeout (the events
// stream is long-lived); callers bound calls with their context.
type apiClient struct {
	base        string
	hc          *http.Client
	requestedBy string
}

// requester names who asks for a drain (the server records it).
func requester() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if h, err := os.Hostname(); err == nil {
		name += "@" + h
	}
	return name + " (fwadmin)"
}

// send makes one request and returns the response of a 2xx status; any
// other status becomes a rest.Error.
func (c *apiClient) send(ctx context.Context, method, path string, q url.Values) (*http.Response, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "fwadmin/"+version)
	req.Header.Set("X-Requested-By", c.requestedBy)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, responseError(resp)
	}
	return resp, nil
}

// do sends a request and returns the whole body.
func (c *apiClient) do(ctx context.Context, method, path string, q url.Values) ([]byte, error) {
	resp, err := c.send(ctx, method, path, q)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// get sends a GET and decodes the JSON answer into out.
func (c *apiClient) get(ctx context.Context, path string, q url.Values, out any) ([]byte, error) {
	body, err := c.do(ctx, http.MethodGet, path, q)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return body, fmt.Errorf("GET %s: unexpected answer: %w", path, err)
	}
	return body, nil
}

// responseError decodes an error answer as pulsaradmin does: the reason of
// a {"reason": ...} body, else the body itself, else the status line.
func responseError(resp *http.Response) error {
	e := rest.Error{Code: resp.StatusCode, Reason: resp.Status}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		e.Reason = err.Error()
		return e
	}
	var b struct {
		Reason *string `json:"reason"`
	}
	switch {
	case json.Unmarshal(body, &b) == nil && b.Reason != nil:
		e.Reason = *b.Reason
	case len(strings.TrimSpace(string(body))) > 0 && json.Unmarshal(body, &b) != nil:
		e.Reason = strings.TrimSpace(string(body))
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		e.Reason += " (redirect to " + resp.Header.Get("Location") + " not followed)"
	}
	return e
}
