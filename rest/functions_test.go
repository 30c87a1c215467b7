package rest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/scheduler"
)

const fnBase = "/admin/v3/functions/public/default/f1"

var f1 = scheduler.FunctionKey{Tenant: "public", Namespace: "default", Name: "f1"}

func TestFunctionReads(t *testing.T) {
	key := func(f *fakeBackend, what string, k scheduler.FunctionKey, i int) {
		f.calls.add("%s %s %d", what, k, i)
	}
	reads := func(f *fakeBackend) {
		f.ListFunctionsFn = func(_ context.Context, tn, ns string) ([]string, error) {
			f.calls.add("list %s/%s", tn, ns)
			if ns == "empty" {
				return nil, nil
			}
			return []string{"f1", "f2"}, nil
		}
		f.GetFunctionFn = func(_ context.Context, k scheduler.FunctionKey) (utils.FunctionConfig, error) {
			key(f, "get", k, -1)
			if k.Name != "f1" {
				return utils.FunctionConfig{}, &scheduler.FunctionNotFoundError{Key: k}
			}
			return utils.FunctionConfig{Tenant: k.Tenant, Namespace: k.Namespace, Name: k.Name, Parallelism: 2}, nil
		}
		f.FunctionStatusFn = func(_ context.Context, k scheduler.FunctionKey) (utils.FunctionStatus, error) {
			key(f, "status", k, -1)
			return utils.FunctionStatus{NumInstances: 1, NumRunning: 1}, nil
		}
		f.InstanceStatusFn = func(_ context.Context, k scheduler.FunctionKey, i int) (utils.FunctionInstanceStatusData, error) {
			key(f, "status", k, i)
			return utils.FunctionInstanceStatusData{Running: true, WorkerID: "w1"}, nil
		}
		f.FunctionStatsFn = func(_ context.Context, k scheduler.FunctionKey) (utils.FunctionStats, error) {
			key(f, "stats", k, -1)
			return utils.FunctionStats{}, nil
		}
		f.InstanceStatsFn = func(_ context.Context, k scheduler.FunctionKey, i int) (utils.FunctionInstanceStatsData, error) {
			key(f, "stats", k, i)
			return utils.FunctionInstanceStatsData{LastInvocation: 7}, nil
		}
		f.OpenPackageFn = func(_ context.Context, k scheduler.FunctionKey) (io.ReadCloser, error) {
			key(f, "download", k, -1)
			return io.NopCloser(strings.NewReader("\x00jar bytes")), nil
		}
	}
	onFollower := func(f *fakeBackend) { reads(f); f.follower() }
	badName := (&scheduler.FunctionKey{Tenant: "public", Namespace: "default", Name: "f!"}).Validate().Error()
	cases := []routeCase{
		{name: "list", method: "GET", path: "/public/default", status: 200, body: `["f1","f2"]`,
			setup: reads, calls: []string{"list public/default"}},
		{name: "list empty", method: "GET", path: "/public/empty", status: 200, body: `[]`, setup: reads},
		{name: "list bad tenant", method: "GET", path: "/pub%20lic/default", status: 400,
			reason: `Invalid tenant: "pub lic" contains ' '; use letters, digits, '-', '_', '.', '='`},
		{name: "get", method: "GET", path: "/public/default/f1", status: 200, setup: reads,
			body: `{"cleanupSubscription":false,"retainOrdering":false,"retainKeyOrdering":false,"forwardSourceMessageProperty":false,"autoAck":false,"parallelism":2,"tenant":"public","namespace":"default","name":"f1","exposePulsarAdminClientEnabled":false,"skipToLatest":false}`},
		{name: "get on follower", method: "GET", path: "/public/default/f1", status: 200, setup: onFollower,
			calls: []string{"get public/default/f1 -1"}},
		{name: "get missing", method: "GET", path: "/public/default/f2", status: 404, setup: reads,
			reason: "Function f2 doesn't exist"},
		{name: "get bad name", method: "GET", path: "/public/default/f!", status: 400, reason: badName},
		{name: "status", method: "GET", path: "/public/default/f1/status", status: 200, setup: reads,
			body: `{"numInstances":1,"numRunning":1,"instances":null}`, calls: []string{"status public/default/f1 -1"}},
		{name: "instance status", method: "GET", path: "/public/default/f1/3/status", status: 200, setup: reads,
			calls: []string{"status public/default/f1 3"}},
		{name: "stats", method: "GET", path: "/public/default/f1/stats", status: 200, setup: reads,
			calls: []string{"stats public/default/f1 -1"}},
		{name: "instance stats", method: "GET", path: "/public/default/f1/0/stats", status: 200, setup: onFollower,
			calls: []string{"stats public/default/f1 0"}},
		{name: "instance not a number", method: "GET", path: "/public/default/f1/x/status", status: 400,
			reason: `Invalid instanceId "x": not a non-negative integer`},
		{name: "instance negative", method: "GET", path: "/public/default/f1/-1/stats", status: 400,
			reason: `Invalid instanceId "-1": not a non-negative integer`},
		{name: "instance padded", method: "POST", path: "/public/default/f1/01/start", status: 400,
			reason: `Invalid instanceId "01": not a non-negative integer`},
		{name: "download", method: "GET", path: "/public/default/f1/download", status: 200, setup: onFollower,
			body: "\x00jar bytes"},
	}
	runRouteCases(t, []string{"/admin/v3/functions"}, cases)

	f := newFake()
	reads(f)
	w := serve(t, New(f, Options{}), "GET", fnBase+"/download", nil)
	if ct := w.Header().Get("Content-Type"); ct != "application/octet-stream" {
		t.Errorf("download content type %q", ct)
	}
}

func TestFunctionWrites(t *testing.T) {
	writes := func(err error) func(*fakeBackend) {
		return func(f *fakeBackend) {
			f.DeleteFunctionFn = func(_ context.Context, k scheduler.FunctionKey) error {
				f.calls.add("delete %s", k)
				return err
			}
			f.SetInstanceStateFn = func(_ context.Context, k scheduler.FunctionKey, i int, running bool) error {
				f.calls.add("state %s %d %v", k, i, running)
				return err
			}
			f.RestartInstanceFn = func(_ context.Context, k scheduler.FunctionKey, i int) error {
				f.calls.add("restart %s %d", k, i)
				return err
			}
		}
	}
	cases := []routeCase{
		{name: "delete", method: "DELETE", path: "", status: 204, setup: writes(nil), calls: []string{"delete public/default/f1"}},
		{name: "delete missing", method: "DELETE", path: "", status: 404, setup: writes(&scheduler.FunctionNotFoundError{Key: f1}),
			reason: "Function f1 doesn't exist"},
		{name: "start", method: "POST", path: "/start", status: 204, setup: writes(nil), calls: []string{"state public/default/f1 -1 true"}},
		{name: "stop", method: "POST", path: "/stop", status: 204, setup: writes(nil), calls: []string{"state public/default/f1 -1 false"}},
		{name: "restart", method: "POST", path: "/restart", status: 204, setup: writes(nil), calls: []string{"restart public/default/f1 -1"}},
		{name: "start one", method: "POST", path: "/2/start", status: 204, setup: writes(nil), calls: []string{"state public/default/f1 2 true"}},
		{name: "stop one", method: "POST", path: "/0/stop", status: 204, setup: writes(nil), calls: []string{"state public/default/f1 0 false"}},
		{name: "restart one", method: "POST", path: "/1/restart", status: 204, setup: writes(nil), calls: []string{"restart public/default/f1 1"}},
		{name: "stop bad index", method: "POST", path: "/one/stop", status: 400, calls: []string{},
			setup: writes(nil), reason: `Invalid instanceId "one": not a non-negative integer`},
		{name: "start bad index from backend", method: "POST", path: "/9/start", status: 400,
			setup: writes(&scheduler.InvalidError{Field: "instance", Detail: "9 is out of range"}), reason: "Invalid instance: 9 is out of range"},
		{name: "restart lost leadership", method: "POST", path: "/restart", status: 307,
			setup: func(f *fakeBackend) {
				writes(ErrNotLeader)(f)
				f.LeaderFn = func() (scheduler.WorkerInfo, bool) { return w2, true }
			},
			location: "http://host-2:6751" + fnBase + "/restart"},
	}
	runRouteCases(t, []string{fnBase}, cases)
}

// part is one multipart part; name is written pulsarctl's way, with a
// trailing space after the quoted name.
type part struct {
	name, filename, body string
}

func multipartBody(t *testing.T, parts ...part) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filename != "" {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, p.name, p.filename))
			h.Set("Content-Type", "application/octet-stream")
		} else {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s" `, p.name))
			h.Set("Content-Type", "application/json")
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, p.body)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, mw.FormDataContentType()
}

// created records what CreateFunction and UpdateFunction received.
type created struct {
	cfg     utils.FunctionConfig
	pkg     *Package
	data    string
	updated bool
}

func recordWrites(f *fakeBackend, got *created, err error) {
	keep := func(cfg utils.FunctionConfig, pkg *Package) {
		got.cfg = cfg
		if pkg != nil {
			p := *pkg
			got.pkg = &p
			if pkg.Data != nil {
				b, _ := io.ReadAll(pkg.Data)
				got.data = string(b)
			}
		}
	}
	f.CreateFunctionFn = func(_ context.Context, cfg utils.FunctionConfig, pkg Package) error {
		keep(cfg, &pkg)
		return err
	}
	f.UpdateFunctionFn = func(_ context.Context, cfg utils.FunctionConfig, pkg *Package) error {
		got.updated = true
		keep(cfg, pkg)
		return err
	}
}

func TestFunctionUploads(t *testing.T) {
	cfg := `{"tenant":"public","namespace":"default","name":"f1","className":"org.example.Fn","inputs":["in"],"parallelism":2,"runtime":"JAVA"}`
	type tc struct {
		name    string
		method  string
		path    string
		parts   []part
		ctype   string // overrides the multipart content type
		backend error
		opts    Options
		status  int
		reason  string
		check   func(t *testing.T, got created)
	}
	cases := []tc{
		{name: "create with data", method: "POST", parts: []part{{"functionConfig", "", cfg}, {"data", "fn.jar", "JARBYTES"}},
			status: 204, check: func(t *testing.T, got created) {
				if got.cfg.ClassName != "org.example.Fn" || got.cfg.Parallelism != 2 || got.pkg.FileName != "fn.jar" ||
					got.data != "JARBYTES" || got.pkg.URL != "" {
					t.Errorf("%+v %+v %q", got.cfg, got.pkg, got.data)
				}
			}},
		{name: "create with url first", method: "POST",
			parts:  []part{{"url", "", "http://repo/fn.jar"}, {"functionConfig", "", cfg}},
			status: 204, check: func(t *testing.T, got created) {
				if got.pkg.URL != "http://repo/fn.jar" || got.pkg.Data != nil {
					t.Errorf("%+v", got.pkg)
				}
			}},
		{name: "create builtin", method: "POST",
			parts:  []part{{"functionConfig", "", `{"jar":"builtin://exclamation","className":"x"}`}},
			status: 204, check: func(t *testing.T, got created) {
				if got.pkg.URL != "builtin://exclamation" {
					t.Errorf("%+v", got.pkg)
				}
				if got.cfg.Tenant != "public" || got.cfg.Namespace != "default" || got.cfg.Name != "f1" {
					t.Errorf("path did not fill the names: %+v", got.cfg)
				}
			}},
		{name: "config as a file part", method: "POST",
			parts:  []part{{"functionConfig", "config.json", cfg}, {"url", "", "file:/tmp/fn.jar"}},
			status: 204, check: func(t *testing.T, got created) {
				if got.cfg.ClassName != "org.example.Fn" {
					t.Errorf("%+v", got.cfg)
				}
			}},
		{name: "create without package", method: "POST", parts: []part{{"functionConfig", "", cfg}},
			status: 400, reason: "Function package is not provided"},
		{name: "create without config", method: "POST", parts: []part{{"data", "fn.jar", "x"}},
			status: 400, reason: "Function config is not provided"},
		{name: "create with empty config", method: "POST", parts: []part{{"functionConfig", "", "  "}, {"data", "fn.jar", "x"}},
			status: 400, reason: "Function config is not provided"},
		{name: "create bad json", method: "POST", parts: []part{{"functionConfig", "", `{"parallelism":"two"}`}},
			status: 400, reason: "Invalid functionConfig: json: cannot unmarshal string into Go struct field FunctionConfig.parallelism of type int"},
		{name: "create name mismatch", method: "POST",
			parts:  []part{{"functionConfig", "", `{"tenant":"public","namespace":"default","name":"f2"}`}, {"url", "", "http://x"}},
			status: 400, reason: `Function config name "f2" does not match "f1" in the path`},
		{name: "create tenant mismatch", method: "POST",
			parts:  []part{{"functionConfig", "", `{"tenant":"other"}`}, {"url", "", "http://x"}},
			status: 400, reason: `Function config tenant "other" does not match "public" in the path`},
		{name: "create data and url", method: "POST",
			parts:  []part{{"functionConfig", "", cfg}, {"url", "", "http://x"}, {"data", "fn.jar", "x"}},
			status: 400, reason: "Only one of data and url may be given"},
		{name: "create two configs", method: "POST",
			parts:  []part{{"functionConfig", "", cfg}, {"functionConfig", "", cfg}, {"url", "", "http://x"}},
			status: 400, reason: "Part functionConfig is given 2 times"},
		{name: "create exists", method: "POST", parts: []part{{"functionConfig", "", cfg}, {"url", "", "http://x"}},
			backend: &scheduler.FunctionExistsError{Key: f1}, status: 400, reason: "Function f1 already exists"},
		{name: "create invalid spec", method: "POST", parts: []part{{"functionConfig", "", cfg}, {"url", "", "http://x"}},
			backend: &scheduler.InvalidError{Field: "parallelism", Detail: "must be between 1 and 10000"},
			status:  400, reason: "Invalid parallelism: must be between 1 and 10000"},
		{name: "create bad path name", method: "POST", path: "/admin/v3/functions/public/default/f%20x",
			parts: []part{{"functionConfig", "", `{}`}}, status: 400,
			reason: `Invalid name: "f x" contains ' '; use letters, digits, '-', '_', '.', '='`},
		{name: "create not multipart", method: "POST", ctype: "application/json", parts: []part{{"functionConfig", "", cfg}},
			status: 415},
		{name: "create truncated multipart", method: "POST", ctype: "multipart/form-data; boundary=nope",
			parts: []part{{"functionConfig", "", cfg}}, status: 400},
		{name: "body over the limit", method: "POST", opts: Options{MaxBodyBytes: 1024},
			parts:  []part{{"functionConfig", "", cfg}, {"data", "fn.jar", strings.Repeat("x", 4096)}},
			status: 413, reason: "Request body is larger than the limit of 1024 bytes"},
		{name: "config over the limit", method: "POST", opts: Options{MaxJSONBytes: 16},
			parts:  []part{{"functionConfig", "", cfg}, {"url", "", "http://x"}},
			status: 413, reason: "functionConfig is larger than the limit of 16 bytes"},

		{name: "update keeps package", method: "PUT", parts: []part{{"functionConfig", "", cfg}},
			status: 204, check: func(t *testing.T, got created) {
				if !got.updated || got.pkg != nil || got.cfg.Parallelism != 2 {
					t.Errorf("%+v", got)
				}
			}},
		{name: "update with options and data", method: "PUT",
			parts:  []part{{"functionConfig", "", cfg}, {"updateOptions", "", `{"updateAuthData":true}`}, {"data", "fn2.jar", "NEW"}},
			status: 204, check: func(t *testing.T, got created) {
				if got.pkg == nil || got.data != "NEW" || got.pkg.FileName != "fn2.jar" {
					t.Errorf("%+v", got)
				}
			}},
		{name: "update bad options", method: "PUT",
			parts:  []part{{"functionConfig", "", cfg}, {"updateOptions", "", `{"updateAuthData":"yes"}`}},
			status: 400, reason: "Invalid updateOptions: json: cannot unmarshal string into Go struct field UpdateOptions.updateAuthData of type bool"},
		{name: "update no change", method: "PUT", parts: []part{{"functionConfig", "", cfg}},
			backend: scheduler.ErrNoChange, status: 400, reason: "Update contains no change"},
		{name: "update missing", method: "PUT", parts: []part{{"functionConfig", "", cfg}},
			backend: &scheduler.FunctionNotFoundError{Key: f1}, status: 404, reason: "Function f1 doesn't exist"},
		{name: "update without config", method: "PUT", parts: []part{{"data", "fn.jar", "x"}},
			status: 400, reason: "Function config is not provided"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake()
			var got created
			recordWrites(f, &got, c.backend)
			body, ctype := multipartBody(t, c.parts...)
			if c.ctype != "" {
				ctype = c.ctype
			}
			path := c.path
			if path == "" {
				path = fnBase
			}
			w := serve(t, New(f, c.opts), c.method, path, body, "Content-Type", ctype)
			if w.Code != c.status {
				t.Fatalf("status %d, want %d: %s", w.Code, c.status, w.Body.String())
			}
			if c.reason != "" {
				if r := reasonOf(t, w); r != c.reason {
					t.Errorf("reason\n got %s\nwant %s", r, c.reason)
				}
			}
			if w.Code >= 400 {
				reasonOf(t, w)
			}
			if c.check != nil {
				c.check(t, got)
			}
		})
	}
}

// TestBodyLimitWithoutLength: a chunked upload (no Content-Length) over the
// limit is cut off by the reader and still answers 413, not 500.
func TestBodyLimitWithoutLength(t *testing.T) {
	f := newFake()
	var got created
	recordWrites(f, &got, nil)
	body, ctype := multipartBody(t, part{"functionConfig", "", `{}`}, part{"data", "fn.jar", strings.Repeat("x", 1<<20)})
	r := httptest.NewRequest("POST", fnBase, io.MultiReader(body))
	r.Header.Set("Content-Type", ctype)
	if r.ContentLength != -1 {
		t.Fatalf("test setup: content length %d", r.ContentLength)
	}
	w := record(New(f, Options{MaxBodyBytes: 64 << 10}), r)
	if w.Code != 413 || reasonOf(t, w) != "Request body is larger than the limit of 65536 bytes" {
		t.Fatalf("%d %s", w.Code, w.Body.String())
	}
}
