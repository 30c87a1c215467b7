package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/gin-gonic/gin"

	"github.com/fworker/fworker/scheduler"
)

// The multipart body of a function create or update, as pulsaradmin and
// pulsarctl send it (reference §7.6): part functionConfig (JSON of
// utils.FunctionConfig), then a file part data or a text part url, and on
// update an optional updateOptions.
const (
	partConfig        = "functionConfig"
	partData          = "data"
	partURL           = "url"
	partUpdateOptions = "updateOptions"
)

// upload is a parsed create/update body. Close releases the package file and
// any temporary files of the form.
type upload struct {
	cfg  utils.FunctionConfig
	pkg  *Package
	form *multipart.Form
	file io.Closer
}

func (u *upload) Close() {
	if u.file != nil {
		_ = u.file.Close()
	}
	if u.form != nil {
		_ = u.form.RemoveAll()
	}
}

func tooLarge(what string, limit int64) error {
	return &reqError{status: http.StatusRequestEntityTooLarge,
		reason: fmt.Sprintf("%s is larger than the limit of %d bytes", what, limit)}
}

// readUpload parses and checks the body. needPackage: a create must bring
// code (data, url, or a jar/py/go URL inside functionConfig, as with
// builtin://); an update may leave the package as it is.
func (s *server) readUpload(c *gin.Context, key scheduler.FunctionKey, needPackage bool) (*upload, error) {
	r := c.Request
	if r.ContentLength > s.opts.MaxBodyBytes {
		return nil, tooLarge("Request body", s.opts.MaxBodyBytes)
	}
	// Bound the body before the multipart reader takes hold of it.
	r.Body = http.MaxBytesReader(c.Writer, r.Body, s.opts.MaxBodyBytes)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, &reqError{status: http.StatusUnsupportedMediaType,
			reason: "Expected a multipart/form-data body with a functionConfig part: " + err.Error()}
	}
	form, err := mr.ReadForm(min(multipartMemory, s.opts.MaxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok || errors.Is(err, multipart.ErrMessageTooLarge) {
			return nil, tooLarge("Request body", s.opts.MaxBodyBytes)
		}
		return nil, badRequest("Invalid multipart body: %v", err)
	}
	u := &upload{form: form}
	if err := s.fillUpload(u, key, needPackage); err != nil {
		u.Close()
		return nil, err
	}
	return u, nil
}

func (s *server) fillUpload(u *upload, key scheduler.FunctionKey, needPackage bool) error {
	raw, ok, err := s.jsonPart(u.form, partConfig)
	if err != nil {
		return err
	}
	if !ok || len(strings.TrimSpace(string(raw))) == 0 {
		return badRequest("Function config is not provided")
	}
	if err := json.Unmarshal(raw, &u.cfg); err != nil {
		return badRequest("Invalid functionConfig: %v", err)
	}
	if err := pathWins(&u.cfg, key); err != nil {
		return err
	}

	if raw, ok, err := s.jsonPart(u.form, partUpdateOptions); err != nil {
		return err
	} else if ok && len(strings.TrimSpace(string(raw))) > 0 {
		var opts utils.UpdateOptions
		if err := json.Unmarshal(raw, &opts); err != nil {
			return badRequest("Invalid updateOptions: %v", err)
		}
	}

	files, urls := u.form.File[partData], u.form.Value[partURL]
	switch {
	case len(files) > 1 || len(urls) > 1:
		return badRequest("Only one data or url part may be given")
	case len(files) == 1 && len(urls) == 1:
		return badRequest("Only one of data and url may be given")
	case len(files) == 1:
		f, err := files[0].Open()
		if err != nil {
			return fmt.Errorf("opening uploaded package: %w", err)
		}
		u.file = f
		u.pkg = &Package{Data: f, FileName: files[0].Filename}
	case len(urls) == 1 && strings.TrimSpace(urls[0]) != "":
		u.pkg = &Package{URL: strings.TrimSpace(urls[0])}
	case needPackage:
		for _, p := range []*string{u.cfg.Jar, u.cfg.Py, u.cfg.Go} {
			if p != nil && *p != "" {
				u.pkg = &Package{URL: *p}
				return nil
			}
		}
		return badRequest("Function package is not provided")
	}
	return nil
}

// jsonPart returns a JSON part sent as a form field or, from clients such as
// curl -F name=@file, as a file; bounded by MaxJSONBytes.
func (s *server) jsonPart(form *multipart.Form, name string) ([]byte, bool, error) {
	limit := s.opts.MaxJSONBytes
	if vs := form.Value[name]; len(vs) > 0 {
		if len(vs) > 1 {
			return nil, true, badRequest("Part %s is given %d times", name, len(vs))
		}
		if int64(len(vs[0])) > limit {
			return nil, true, tooLarge(name, limit)
		}
		return []byte(vs[0]), true, nil
	}
	fs := form.File[name]
	if len(fs) == 0 {
		return nil, false, nil
	}
	if len(fs) > 1 {
		return nil, true, badRequest("Part %s is given %d times", name, len(fs))
	}
	if fs[0].Size > limit {
		return nil, true, tooLarge(name, limit)
	}
	f, err := fs[0].Open()
	if err != nil {
		return nil, true, fmt.Errorf("opening part %s: %w", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, true, fmt.Errorf("reading part %s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, true, tooLarge(name, limit)
	}
	return b, true, nil
}

// pathWins makes the path's tenant/namespace/name the function's: a field
// the JSON leaves empty takes the path's value, one that names something
// else is a 400.
func pathWins(cfg *utils.FunctionConfig, key scheduler.FunctionKey) error {
	for _, f := range []struct {
		field string
		json  *string
		path  string
	}{{"tenant", &cfg.Tenant, key.Tenant}, {"namespace", &cfg.Namespace, key.Namespace}, {"name", &cfg.Name, key.Name}} {
		switch *f.json {
		case "":
			*f.json = f.path
		case f.path:
		default:
			return badRequest("Function config %s %q does not match %q in the path", f.field, *f.json, f.path)
		}
	}
	return nil
}
