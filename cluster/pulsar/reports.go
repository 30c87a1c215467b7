package pulsar

import (
	"context"
	"encoding/json"
	"fmt"

	pulsarclient "github.com/apache/pulsar-client-go/pulsar"

	"github.com/fworker/fworker/scheduler"
)

// report is the JSON of one observation on the reports topic.
type report struct {
	Type string          `json:"type"`
	Body json.RawMessage `json:"body"`
}

const (
	tStarted = "InstanceStarted"
	tStopped = "InstanceStopped"
	tFailed  = "InstanceFailed"
	tReport  = "WorkerReport"
)

func encodeReport(m scheduler.Message) ([]byte, error) {
	var t string
	switch m.(type) {
	case scheduler.InstanceStarted:
		t = tStarted
	case scheduler.InstanceStopped:
		t = tStopped
	case scheduler.InstanceFailed:
		t = tFailed
	case scheduler.WorkerReport:
		t = tReport
	default:
		return nil, fmt.Errorf("pulsarcluster: %T is not a worker observation", m)
	}
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return json.Marshal(report{Type: t, Body: body})
}

func decodeReport(data []byte) (scheduler.Message, error) {
	var r report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	switch r.Type {
	case tStarted:
		return decodeBody[scheduler.InstanceStarted](r.Body)
	case tStopped:
		return decodeBody[scheduler.InstanceStopped](r.Body)
	case tFailed:
		return decodeBody[scheduler.InstanceFailed](r.Body)
	case tReport:
		return decodeBody[scheduler.WorkerReport](r.Body)
	}
	return nil, fmt.Errorf("unknown report type %q", r.Type)
}

func decodeBody[T scheduler.Message](b json.RawMessage) (scheduler.Message, error) {
	var m T
	err := json.Unmarshal(b, &m)
	return m, err
}

// Report publishes m on the reports topic, which the leader reads. Any
// session may report; nothing is lost on the way to the broker, but a
// report sent while no leader reads is never delivered (see the package doc).
func (s *session) Report(ctx context.Context, m scheduler.Message) error {
	data, err := encodeReport(m)
	if err != nil {
		return err
	}
	p, err := s.producer(&s.reporter, pulsarclient.ProducerOptions{Topic: s.b.topics.reports.name})
	if err != nil {
		return err
	}
	ctx, cancel := s.merge(ctx)
	defer cancel()
	if _, err := p.Send(ctx, &pulsarclient.ProducerMessage{Payload: data}); err != nil {
		return s.closedOr(fmt.Errorf("pulsarcluster: report: %w", err))
	}
	return nil
}
