package rest

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
)

func newRequest(method, target string, withTLS bool) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	if withTLS {
		r.TLS = &tls.ConnectionState{}
	} else {
		r.TLS = nil
	}
	return r
}

func record(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
