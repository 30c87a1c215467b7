package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/rest"
	"github.com/fworker/fworker/scheduler"
	"github.com/fworker/fworker/sdk/stats"
)

// runsOn is the worker that should run the instance now: the move target
// once the source was told to stop.
func runsOn(a scheduler.Assignment) string {
	if m := a.Move; m != nil && m.Phase != scheduler.Starting {
		return m.Target
	}
	return a.Worker
}

func (s *Service) FunctionStatus(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionStatus, error) {
	f, ok := s.mirror.function(key)
	if !ok {
		return utils.FunctionStatus{}, &scheduler.FunctionNotFoundError{Key: key}
	}
	st := utils.FunctionStatus{NumInstances: f.Spec.Parallelism, Instances: []utils.FunctionInstanceStatus{}}
	for i := range f.Spec.Parallelism {
		d, err := s.InstanceStatus(ctx, key, i)
		if err != nil {
			d = utils.FunctionInstanceStatusData{Err: err.Error()}
		}
		if d.Running {
			st.NumRunning++
		}
		st.Instances = append(st.Instances, utils.FunctionInstanceStatus{InstanceID: i, Status: d})
	}
	return st, nil
}

// InstanceStatus answers for an instance that runs here from the runtime,
// and asks the worker it runs on otherwise (once: forwarded requests are
// answered locally).
func (s *Service) InstanceStatus(ctx context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatusData, error) {
	id, a, assigned, err := s.instance(key, index)
	if err != nil {
		return utils.FunctionInstanceStatusData{}, err
	}
	if !assigned {
		return utils.FunctionInstanceStatusData{Err: "instance is not assigned to any worker"}, nil
	}
	if a.Stopped {
		return utils.FunctionInstanceStatusData{WorkerID: a.Worker, Err: "stopped"}, nil
	}
	owner := runsOn(a)
	if owner == s.opts.Self.ID || rest.IsForwarded(ctx) {
		return s.localStatus(id, owner), nil
	}
	return s.remoteStatus(ctx, owner, id)
}

// instance resolves one instance of a function from the mirror: 404 for an
// unknown function, 400 for an index out of range.
func (s *Service) instance(key scheduler.FunctionKey, index int) (scheduler.InstanceID, scheduler.Assignment, bool, error) {
	id := scheduler.InstanceID{Function: key, Index: index}
	f, ok := s.mirror.function(key)
	if !ok {
		return id, scheduler.Assignment{}, false, &scheduler.FunctionNotFoundError{Key: key}
	}
	if index < 0 || index >= f.Spec.Parallelism {
		return id, scheduler.Assignment{}, false, &scheduler.InvalidError{Field: "instanceId", Detail: fmt.Sprintf("%d is not between 0 and %d", index, f.Spec.Parallelism-1)}
	}
	a, assigned := s.mirror.assignment(id)
	return id, a, assigned, nil
}

func (s *Service) localStatus(id scheduler.InstanceID, owner string) utils.FunctionInstanceStatusData {
	st, ok := s.rt.Status(id)
	d := utils.FunctionInstanceStatusData{WorkerID: owner, LatestUserExceptions: []utils.ExceptionInformation{}, LatestSystemExceptions: []utils.ExceptionInformation{}}
	if !ok || owner != s.opts.Self.ID {
		d.Err = "not running on " + s.opts.Self.ID
		return d
	}
	d.Running = st.Running && st.State == "running"
	d.NumRestarts = int64(st.NumRestarts)
	d.Err = st.LastError
	f := s.instanceCounters(id)
	d.NumReceived, d.NumSuccessfullyProcessed = f.ReceivedTotal, f.ProcessedSuccessfullyTotal
	d.NumUserExceptions, d.NumSystemExceptions = f.UserExceptionsTotal, f.SystemExceptionsTotal
	d.AverageLatency, d.LastInvocationTime = f.AvgProcessLatency, f.LastInvocation
	d.LatestUserExceptions = exceptions(f.LatestUserExceptions)
	d.LatestSystemExceptions = exceptions(f.LatestSystemExceptions)
	return d
}

// instanceCounters reads what a local instance wrote to its stats file
// (zeros when it writes none).
func (s *Service) instanceCounters(id scheduler.InstanceID) stats.File {
	path, err := s.rt.StatsFile(id)
	if err != nil {
		return stats.File{}
	}
	f, err := stats.Read(path)
	if err != nil {
		s.log.Debug("worker: unreadable stats file", "instance", id.String(), "err", err)
	}
	return f
}

func exceptions(in []stats.Exception) []utils.ExceptionInformation {
	out := make([]utils.ExceptionInformation, 0, len(in))
	for _, e := range in {
		out = append(out, utils.ExceptionInformation{ExceptionString: e.ExceptionString, TimestampMs: e.TimestampMs})
	}
	return out
}

func base(w stats.Window) utils.FunctionInstanceStatsDataBase {
	return utils.FunctionInstanceStatsDataBase{
		ReceivedTotal: w.ReceivedTotal, ProcessedSuccessfullyTotal: w.ProcessedSuccessfullyTotal,
		SystemExceptionsTotal: w.SystemExceptionsTotal, UserExceptionsTotal: w.UserExceptionsTotal,
		AvgProcessLatency: w.AvgProcessLatency,
	}
}

func statsData(f stats.File) utils.FunctionInstanceStatsData {
	um := f.UserMetrics
	if um == nil {
		um = map[string]float64{}
	}
	return utils.FunctionInstanceStatsData{FunctionInstanceStatsDataBase: base(f.Window), OneMin: base(f.OneMin),
		LastInvocation: f.LastInvocation, UserMetrics: um}
}

func (s *Service) remoteStatus(ctx context.Context, owner string, id scheduler.InstanceID) (utils.FunctionInstanceStatusData, error) {
	var d utils.FunctionInstanceStatusData
	if err := s.forward(ctx, owner, id, "status", &d); err != nil {
		return utils.FunctionInstanceStatusData{WorkerID: owner, Err: err.Error()}, nil
	}
	return d, nil
}

// forward asks the worker an instance runs on for its status or stats,
// marked as forwarded so that it answers from its own state.
func (s *Service) forward(ctx context.Context, owner string, id scheduler.InstanceID, what string, v any) error {
	var w *scheduler.WorkerInfo
	for _, m := range s.sess.View().Members {
		if m.ID == owner {
			w = &m
		}
	}
	if w == nil {
		return fmt.Errorf("worker %s is not a member", owner)
	}
	url := fmt.Sprintf("http://%s:%d/admin/v3/functions/%s/%s/%s/%d/%s", w.Hostname, w.Port,
		id.Function.Tenant, id.Function.Namespace, id.Function.Name, id.Index, what)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set(rest.ForwardedHeader, "true")
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("worker %s answered %s", owner, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// FunctionStats adds up the instances' counters, each read where the
// instance runs. Counters come from the instances' stats files (the Go SDK
// writes one); an instance that writes none counts zero.
func (s *Service) FunctionStats(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionStats, error) {
	f, ok := s.mirror.function(key)
	if !ok {
		return utils.FunctionStats{}, &scheduler.FunctionNotFoundError{Key: key}
	}
	st := utils.FunctionStats{Instances: []utils.FunctionInstanceStats{}}
	var total, oneMin weighted
	for i := range f.Spec.Parallelism {
		d, err := s.InstanceStats(ctx, key, i)
		if err != nil {
			return utils.FunctionStats{}, err
		}
		st.Instances = append(st.Instances, utils.FunctionInstanceStats{
			InstanceID: int64(i), FunctionInstanceStatsDataBase: d.FunctionInstanceStatsDataBase, Metrics: d})
		total.add(d.FunctionInstanceStatsDataBase)
		oneMin.add(d.OneMin)
		st.LastInvocation = max(st.LastInvocation, d.LastInvocation)
	}
	// FunctionStats spells the totals out at its top level (its embedded
	// instance fields are shadowed in JSON).
	sum := total.sum()
	st.ReceivedTotal, st.ProcessedSuccessfullyTotal = sum.ReceivedTotal, sum.ProcessedSuccessfullyTotal
	st.SystemExceptionsTotal, st.UserExceptionsTotal = sum.SystemExceptionsTotal, sum.UserExceptionsTotal
	st.AvgProcessLatency, st.OneMin = sum.AvgProcessLatency, oneMin.sum()
	return st, nil
}

// weighted adds instances' counters up; the average latency is weighted by
// the messages each instance processed.
type weighted struct {
	utils.FunctionInstanceStatsDataBase
	latency float64
}

func (w *weighted) add(b utils.FunctionInstanceStatsDataBase) {
	w.ReceivedTotal += b.ReceivedTotal
	w.ProcessedSuccessfullyTotal += b.ProcessedSuccessfullyTotal
	w.SystemExceptionsTotal += b.SystemExceptionsTotal
	w.UserExceptionsTotal += b.UserExceptionsTotal
	w.latency += b.AvgProcessLatency * float64(b.ProcessedSuccessfullyTotal)
}

func (w *weighted) sum() utils.FunctionInstanceStatsDataBase {
	b := w.FunctionInstanceStatsDataBase
	if b.ProcessedSuccessfullyTotal > 0 {
		b.AvgProcessLatency = w.latency / float64(b.ProcessedSuccessfullyTotal)
	}
	return b
}

// InstanceStats answers for a local instance from its stats file and asks
// the worker it runs on otherwise (once).
func (s *Service) InstanceStats(ctx context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatsData, error) {
	id, a, assigned, err := s.instance(key, index)
	if err != nil {
		return utils.FunctionInstanceStatsData{}, err
	}
	if !assigned || a.Stopped {
		return statsData(stats.File{}), nil
	}
	owner := runsOn(a)
	if owner == s.opts.Self.ID || rest.IsForwarded(ctx) {
		return statsData(s.instanceCounters(id)), nil
	}
	var d utils.FunctionInstanceStatsData
	if err := s.forward(ctx, owner, id, "stats", &d); err != nil {
		s.log.Debug("worker: stats of a remote instance unavailable", "instance", id.String(), "err", err)
		return statsData(stats.File{}), nil
	}
	return d, nil
}
