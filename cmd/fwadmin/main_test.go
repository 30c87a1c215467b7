package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"
	"github.com/spf13/cobra"

	"github.com/fworker/fworker/drain"
)

func TestEveryCommandHasHelpAndExamples(t *testing.T) {
	root := newRoot(&app{stdout: io.Discard, stderr: io.Discard})
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		n++
		if c.Short == "" || c.Example == "" {
			t.Errorf("%s: Short %q, Example %q", c.CommandPath(), c.Short, c.Example)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	// root, completion, 2 groups, 13 worker commands, 11 function commands
	if n != 28 {
		t.Errorf("%d commands", n)
	}
}

func TestDrainJudge(t *testing.T) {
	rec := func(s drain.Status, lastError string) drain.Record {
		return drain.Record{Worker: "w", Status: s, LastError: lastError}
	}
	notFound := drain.NotFound("w")
	cases := []struct {
		name string
		seq  []drain.Record
		want verdict
	}{
		{"running", []drain.Record{rec(drain.Running, "")}, keepWaiting},
		{"not run yet", []drain.Record{rec(drain.NotRun, "")}, keepWaiting},
		{"success", []drain.Record{rec(drain.Running, ""), rec(drain.Success, "")}, succeeded},
		{"error", []drain.Record{rec(drain.Running, ""), rec(drain.Error, "deadline passed")}, failed},
		{"not found after success: the worker left", []drain.Record{rec(drain.Success, ""), notFound}, succeeded},
		{"not found while running: record lost", []drain.Record{rec(drain.Running, ""), notFound}, failed},
		{"not found at once", []drain.Record{notFound}, failed},
	}
	for _, c := range cases {
		var j drainJudge
		var v verdict
		for _, r := range c.seq {
			v = j.judge(r)
		}
		if v != c.want {
			t.Errorf("%s: %v, want %v", c.name, v, c.want)
		}
	}
}

func TestReadSSE(t *testing.T) {
	in := ": keep-alive\n\nevent: drain-started\ndata: {\"a\":1}\n\r\nevent: x\r\ndata: one\r\ndata: two\r\n\r\ndata: plain\n\nevent: no-data\n\n"
	type ev struct{ typ, data string }
	var got []ev
	err := readSSE(strings.NewReader(in), func(typ string, data []byte) error {
		got = append(got, ev{typ, string(data)})
		return nil
	})
	want := []ev{{"drain-started", `{"a":1}`}, {"x", "one\ntwo"}, {"message", "plain"}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("%v %+v", err, got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestResponseError(t *testing.T) {
	resp := func(code int, body string) *http.Response {
		return &http.Response{StatusCode: code, Status: http.StatusText(code), Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body))}
	}
	cases := []struct {
		code       int
		body, want string
	}{
		{400, `{"reason":"Worker x is not among the current workers in the system"}`, "Worker x is not among the current workers in the system"},
		{500, "plain text", "plain text"},
		{503, "", "Service Unavailable"},
		{404, `{"other":1}`, "Not Found"},
	}
	for _, c := range cases {
		err := responseError(resp(c.code, c.body))
		re, ok := err.(rest.Error)
		if !ok || re.Code != c.code || re.Reason != c.want {
			t.Errorf("%d %q: %#v", c.code, c.body, err)
		}
	}
}

func TestCheckRedirect(t *testing.T) {
	put, _ := http.NewRequest(http.MethodPut, "http://a/admin/v2/worker/leader/drain", nil)
	put.Header.Set("X-Requested-By", "me")
	again, _ := http.NewRequest(http.MethodPut, "http://b/admin/v2/worker/leader/drain", nil)
	again.Response = &http.Response{StatusCode: 307}
	if err := checkRedirect(again, []*http.Request{put}); err != nil || again.Header.Get("X-Requested-By") != "me" {
		t.Fatalf("307 PUT->PUT: %v %v", err, again.Header)
	}
	get, _ := http.NewRequest(http.MethodGet, "http://b/", nil)
	get.Response = &http.Response{StatusCode: 302}
	if err := checkRedirect(get, []*http.Request{put}); err == nil {
		t.Fatal("a redirect that turns PUT into GET was followed")
	}
}

func TestFuncNameResolve(t *testing.T) {
	tn, ns, name, err := funcName{name: "f"}.resolve(true)
	if err != nil || tn != "public" || ns != "default" || name != "f" {
		t.Fatalf("%s/%s/%s %v", tn, ns, name, err)
	}
	if _, _, _, err := (funcName{}).resolve(true); err == nil {
		t.Fatal("no name accepted")
	}
	if _, _, _, err := (funcName{fqfn: "a/b"}).resolve(true); err == nil {
		t.Fatal("bad fqfn accepted")
	}
	if _, _, _, err := (funcName{fqfn: "a/b/c", name: "c"}).resolve(true); err == nil {
		t.Fatal("fqfn and name accepted together")
	}
}

func TestDrainPath(t *testing.T) {
	p, q := drainPath("")
	if p != pathDrain || len(q) != 0 {
		t.Fatal(p, q)
	}
	p, q = drainPath("w 1")
	if p != pathLeaderDrain || q.Encode() != (url.Values{"workerId": {"w 1"}}).Encode() {
		t.Fatal(p, q)
	}
}
