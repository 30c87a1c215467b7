package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/fworker/fworker/rest"
	"github.com/fworker/fworker/scheduler"
)

// Package names are content addressed: function://<fqfn>@sha256:<hex>, so a
// worker's cache entry for a name never goes stale.
func packageName(k scheduler.FunctionKey, sum []byte) string {
	return fmt.Sprintf("function://%s@sha256:%s", k, hex.EncodeToString(sum))
}

// packageFor names the package holding data for function k.
func packageFor(k scheduler.FunctionKey, data []byte) string {
	sum := sha256.Sum256(data)
	return packageName(k, sum[:])
}

// storePackage stores an uploaded or referenced package and returns its name.
func (s *Service) storePackage(ctx context.Context, k scheduler.FunctionKey, p rest.Package) (string, error) {
	r := p.Data
	if r == nil {
		body, err := s.openURL(ctx, p.URL)
		if err != nil {
			return "", err
		}
		defer body.Close()
		r = body
	}
	data, err := io.ReadAll(io.LimitReader(r, s.opts.MaxPackageBytes+1))
	if err != nil {
		return "", err
	}
	if int64(len(data)) > s.opts.MaxPackageBytes {
		return "", &scheduler.InvalidError{Field: "package", Detail: fmt.Sprintf("larger than %d bytes", s.opts.MaxPackageBytes)}
	}
	if len(data) == 0 {
		return "", &scheduler.InvalidError{Field: "package", Detail: "is empty"}
	}
	name := packageFor(k, data)
	if _, err := s.sess.PutPackage(ctx, name, strings.NewReader(string(data)), s.opts.MaxPackageBytes); err != nil {
		return "", err
	}
	return name, nil
}

// openURL reads a package given by an http(s) URL. file: URLs are refused:
// they would let anyone who may create a function read the leader's disk.
// builtin:// connectors do not exist here.
func (s *Service) openURL(ctx context.Context, u string) (io.ReadCloser, error) {
	switch {
	case strings.HasPrefix(u, "http://"), strings.HasPrefix(u, "https://"):
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, &scheduler.InvalidError{Field: "url", Detail: err.Error()}
		}
		resp, err := s.opts.HTTPClient.Do(req)
		if err != nil {
			return nil, &scheduler.InvalidError{Field: "url", Detail: err.Error()}
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, &scheduler.InvalidError{Field: "url", Detail: fmt.Sprintf("%s answered %s", u, resp.Status)}
		}
		return resp.Body, nil
	case u == "":
		return nil, &scheduler.InvalidError{Field: "package", Detail: "no file and no url given"}
	}
	return nil, &scheduler.InvalidError{Field: "url", Detail: fmt.Sprintf("%q: only http(s):// package URLs are supported; upload the file instead", u)}
}

// fetchPackage returns the local path of a package, fetching it into this
// worker's cache once.
func (s *Service) fetchPackage(ctx context.Context, name string) (string, error) {
	sum := sha256.Sum256([]byte(name))
	dir := filepath.Join(s.opts.Dir, "packages")
	path := filepath.Join(dir, hex.EncodeToString(sum[:16]))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	r, err := s.sess.OpenPackage(ctx, name)
	if err != nil {
		return "", err
	}
	defer r.Close()
	tmp, err := os.CreateTemp(dir, "fetch-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, r); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(tmp.Name(), path)
}
