package rest

import (
	"bytes"
	"net/http"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/gin-gonic/gin"
)

// Pulsar's /worker-stats routes and the root /metrics, /initialized and
// /config.

func (s *server) workerMetrics(c *gin.Context) error {
	m, err := s.b.WorkerMetrics(c.Request.Context())
	if err != nil {
		return err
	}
	if m == nil {
		m = []utils.Metrics{}
	}
	writeJSON(c.Writer, http.StatusOK, m)
	return nil
}

func (s *server) functionsMetrics(c *gin.Context) error {
	m, err := s.b.FunctionsMetrics(c.Request.Context())
	if err != nil {
		return err
	}
	if m == nil {
		m = []utils.WorkerFunctionInstanceStats{}
	}
	writeJSON(c.Writer, http.StatusOK, m)
	return nil
}

// prometheusContentType is the text exposition format, version 0.0.4.
const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

// prometheus renders into a buffer first, so that a failing Backend still
// gets a clean 500 instead of half an exposition.
func (s *server) prometheus(c *gin.Context) error {
	var buf bytes.Buffer
	if err := s.b.WritePrometheus(&buf); err != nil {
		return err
	}
	c.Header("Content-Type", prometheusContentType)
	c.Status(http.StatusOK)
	_, _ = c.Writer.Write(buf.Bytes())
	return nil
}

// initialized is Pulsar's WorkerReadinessResource: true, or (from the
// initialization gate) 503.
func (s *server) initialized(c *gin.Context) error {
	writeJSON(c.Writer, http.StatusOK, true)
	return nil
}

// config is a non-secret view: Options.Config plus this worker's identity
// under WorkerConfig's names.
func (s *server) config(c *gin.Context) error {
	out := make(map[string]any, len(s.opts.Config)+3)
	for k, v := range s.opts.Config {
		out[k] = v
	}
	self := s.b.Self()
	out["workerId"] = self.ID
	out["workerHostname"] = self.Hostname
	out["workerPort"] = self.Port
	writeJSON(c.Writer, http.StatusOK, out)
	return nil
}
