package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fworker/fworker/scheduler"
)

// DetailsFileName is the name of the details file in an instance's work dir.
const DetailsFileName = "function.json"

// StatsFileName is where an instance may write its counters (package
// sdk/stats), in its work dir; FWORKER_STATS_FILE names it.
const StatsFileName = "stats.json"

// instancePaths returns the instance's work dir and log file:
// <Dir>/instances/<t>/<ns>/<name>/<index> and <Dir>/logs/<t>/<ns>/<name>/<index>.log.
func instancePaths(dir string, id scheduler.InstanceID) (work, log string, err error) {
	k := id.Function
	for _, part := range []string{k.Tenant, k.Namespace, k.Name} {
		if part == "" || part == "." || part == ".." || filepath.Base(part) != part {
			return "", "", fmt.Errorf("instance %s: %q cannot be used as a directory name", id, part)
		}
	}
	idx := strconv.Itoa(id.Index)
	return filepath.Join(dir, "instances", k.Tenant, k.Namespace, k.Name, idx),
		filepath.Join(dir, "logs", k.Tenant, k.Namespace, k.Name, idx+".log"), nil
}

// detailsDoc is the JSON of FWORKER_FUNCTION_DETAILS_FILE.
type detailsDoc struct {
	Tenant        string              `json:"tenant"`
	Namespace     string              `json:"namespace"`
	Name          string              `json:"name"`
	InstanceIndex int                 `json:"instanceIndex"`
	Instance      string              `json:"instance"`
	FQFN          string              `json:"fqfn"`
	Parallelism   int                 `json:"parallelism"`
	Resources     scheduler.Resources `json:"resources"`
	Runtime       string              `json:"runtime"`
	Package       string              `json:"package"`
	PackagePath   string              `json:"packagePath"`
	Version       uint64              `json:"version"`
	Gen           uint64              `json:"gen"`
	WorkerID      string              `json:"workerId"`
	// Details is Spec.Details verbatim when it is JSON, else it is in
	// DetailsBase64.
	Details       json.RawMessage `json:"details,omitempty"`
	DetailsBase64 []byte          `json:"detailsBase64,omitempty"`
}

// writeDetails writes the details file atomically (temp file + rename), mode
// 0600 because details may carry secrets.
func writeDetails(path, workerID string, in Instance) error {
	k := in.ID.Function
	doc := detailsDoc{
		Tenant: k.Tenant, Namespace: k.Namespace, Name: k.Name,
		InstanceIndex: in.ID.Index, Instance: in.ID.String(), FQFN: k.String(),
		Parallelism: in.Spec.Parallelism, Resources: in.Spec.Resources,
		Runtime: in.Spec.Runtime, Package: in.Spec.Package, PackagePath: in.PackagePath,
		Version: in.Version, Gen: in.Gen, WorkerID: workerID,
	}
	if len(in.Spec.Details) > 0 {
		if json.Valid(in.Spec.Details) {
			doc.Details = in.Spec.Details
		} else {
			doc.DetailsBase64 = in.Spec.Details
		}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".function-*.json")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
