package rest

import "context"

// ForwardedHeader marks a request one worker sends to another on behalf of
// a client (instance status of an instance that runs elsewhere). The
// receiver answers from its own state and never forwards again, so two
// workers with different views cannot bounce a request between them.
const ForwardedHeader = "X-Fworker-Forwarded"

type forwardedKey struct{}

// WithForwarded marks ctx as serving a forwarded request.
func WithForwarded(ctx context.Context) context.Context {
	return context.WithValue(ctx, forwardedKey{}, true)
}

// IsForwarded reports whether ctx serves a forwarded request.
func IsForwarded(ctx context.Context) bool {
	v, _ := ctx.Value(forwardedKey{}).(bool)
	return v
}
