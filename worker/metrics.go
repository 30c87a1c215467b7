package worker

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/drain"
)

func (s *Service) localInstances() int { return len(s.rt.Running()) }

func (s *Service) WorkerMetrics(context.Context) ([]utils.Metrics, error) {
	fns, expected, assigned := s.mirror.counts()
	lead := 0
	if s.IsLeader() {
		lead = 1
	}
	return []utils.Metrics{{
		Metrics: map[string]interface{}{
			"pulsar_function_worker_instance_count":                s.localInstances(),
			"pulsar_function_worker_is_leader":                     lead,
			"pulsar_function_worker_total_function_count":          fns,
			"pulsar_function_worker_total_expected_instance_count": expected,
			"fworker_assigned_instance_count":                      assigned,
		},
		Dimensions: map[string]string{"metric": "worker", "workerId": s.opts.Self.ID},
	}}, nil
}

func (s *Service) FunctionsMetrics(context.Context) ([]utils.WorkerFunctionInstanceStats, error) {
	out := []utils.WorkerFunctionInstanceStats{}
	for _, r := range s.rt.Running() {
		out = append(out, utils.WorkerFunctionInstanceStats{Name: r.Instance.String(),
			Metrics: statsData(s.instanceCounters(r.Instance))})
	}
	return out, nil
}

// WritePrometheus writes Pulsar's worker gauges and our drain gauges.
func (s *Service) WritePrometheus(w io.Writer) error {
	fns, expected, assigned := s.mirror.counts()
	cluster := s.opts.Self.ID
	lead := 0
	if s.IsLeader() {
		lead = 1
	}
	gauge := func(name, help string, v any, labels string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s{%s} %v\n", name, help, name, name, labels, v)
	}
	lbl := fmt.Sprintf("worker=%q", cluster)
	gauge("pulsar_function_worker_instance_count", "Instances running on this worker.", s.localInstances(), lbl)
	gauge("pulsar_function_worker_is_leader", "1 if this worker is the leader.", lead, lbl)
	gauge("pulsar_function_worker_total_function_count", "Functions in the cluster.", fns, lbl)
	gauge("pulsar_function_worker_total_expected_instance_count", "Instances the functions ask for.", expected, lbl)
	gauge("fworker_assigned_instance_count", "Instances assigned to some worker.", assigned, lbl)
	fmt.Fprintf(w, "# HELP fworker_drain_remaining Instances still on a draining worker.\n# TYPE fworker_drain_remaining gauge\n")
	recs := s.mirror.drainRecords()
	for _, r := range recs {
		fmt.Fprintf(w, "fworker_drain_remaining{drained=%q} %d\n", r.Worker, r.Remaining)
	}
	fmt.Fprintf(w, "# HELP fworker_drain_moved Instances moved off a draining worker.\n# TYPE fworker_drain_moved gauge\n")
	for _, r := range recs {
		fmt.Fprintf(w, "fworker_drain_moved{drained=%q} %d\n", r.Worker, r.Moved)
	}
	fmt.Fprintf(w, "# HELP fworker_drain_running 1 while a drain runs.\n# TYPE fworker_drain_running gauge\n")
	for _, r := range recs {
		running := 0
		if r.Status == drain.Running {
			running = 1
		}
		fmt.Fprintf(w, "fworker_drain_running{drained=%q} %d\n", r.Worker, running)
	}
	return nil
}
