package runtime

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
)

// command returns the program and arguments that run the instance's
// package, according to its runtime.
func command(o *Options, in Instance) (string, []string, error) {
	if in.PackagePath == "" {
		return "", nil, fmt.Errorf("instance %s has no package path", in.ID)
	}
	// Absolute: a relative path would be resolved against the instance's
	// work dir, and a bare name looked up in PATH.
	pkg, err := filepath.Abs(in.PackagePath)
	if err != nil {
		return "", nil, err
	}
	switch rt := in.Spec.Runtime; rt {
	case "GO", "":
		return pkg, nil, nil
	case "JAVA":
		java, err := interpreter(rt, o.JavaPath)
		if err != nil {
			return "", nil, err
		}
		if class := className(in.Spec.Details); class != "" {
			return java, []string{"-cp", pkg, class}, nil
		}
		return java, []string{"-jar", pkg}, nil
	case "PYTHON":
		python, err := interpreter(rt, o.PythonPath)
		if err != nil {
			return "", nil, err
		}
		return python, []string{pkg}, nil
	default:
		return "", nil, fmt.Errorf("unsupported runtime %q (want GO, JAVA or PYTHON)", rt)
	}
}

func interpreter(rt, name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("runtime %s needs interpreter %q, which was not found: %w", rt, name, err)
	}
	return path, nil
}

// className reads the "className" field of JSON function details, as
// Pulsar's FunctionDetails names the Java class; "" if there is none.
func className(details []byte) string {
	var d struct {
		ClassName string `json:"className"`
	}
	if json.Unmarshal(details, &d) != nil {
		return ""
	}
	return d.ClassName
}

// environment is the instance's environment: the worker's, then
// Options.Env, then the contract's FWORKER_* variables (later entries win).
func environment(base []string, o *Options, in Instance, detailsFile string) []string {
	k := in.ID.Function
	env := make([]string, 0, len(base)+len(o.Env)+12)
	env = append(env, base...)
	env = append(env, o.Env...)
	return append(env,
		"FWORKER_TENANT="+k.Tenant,
		"FWORKER_NAMESPACE="+k.Namespace,
		"FWORKER_NAME="+k.Name,
		"FWORKER_INSTANCE_ID="+strconv.Itoa(in.ID.Index),
		"FWORKER_FQFN="+k.String(),
		"FWORKER_INSTANCE="+in.ID.String(),
		"FWORKER_PARALLELISM="+strconv.Itoa(in.Spec.Parallelism),
		"FWORKER_FUNCTION_VERSION="+strconv.FormatUint(in.Version, 10),
		"FWORKER_WORKER_ID="+o.WorkerID,
		"FWORKER_GEN="+strconv.FormatUint(in.Gen, 10),
		"FWORKER_FUNCTION_DETAILS_FILE="+detailsFile,
		"FWORKER_STATS_FILE="+filepath.Join(filepath.Dir(detailsFile), StatsFileName),
	)
}
