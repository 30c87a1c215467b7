// Command exclamation is the classic Pulsar Functions example: every input
// comes out on the output topic with a "!" appended.
//
//	go build -o exclamation ./examples/exclamation
//	fwadmin functions create --name exclamation --go exclamation \
//	    --inputs persistent://public/default/in --output persistent://public/default/out
package main

import (
	"context"

	"github.com/fworker/fworker/sdk/function"
)

func main() {
	function.Start(func(_ context.Context, _ *function.Context, in []byte) ([]byte, error) {
		return append(in, '!'), nil
	})
}
