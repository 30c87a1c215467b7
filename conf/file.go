package conf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fileValues is a parsed YAML file: its top-level values and the line of
// each key (lower-cased), for messages.
type fileValues struct {
	path   string
	values map[string]any
	lines  map[string]int
}

// where names a key's place in the file, e.g. "worker.yml:12".
func (f *fileValues) where(name string) string {
	if line, ok := f.lines[strings.ToLower(name)]; ok {
		return fmt.Sprintf("%s:%d", f.path, line)
	}
	return f.path
}

// parseFile reads YAML data. Unknown keys and keys spelled in another case
// are warnings; keys that differ only in case are an error (which one
// would win is undefined once viper lower-cases them).
func parseFile(path string, data []byte) (_ *fileValues, warnings []string, err error) {
	f := &fileValues{path: path, values: map[string]any{}, lines: map[string]int{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return f, nil, nil
	} else if err != nil {
		return nil, nil, fmt.Errorf("conf: %s: %w", path, err)
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		warnings = append(warnings, path+": only the first YAML document is read")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return f, warnings, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("conf: %s:%d: the top level must be a mapping of keys to values", path, root.Line)
	}
	untime(root)
	if err := root.Decode(&f.values); err != nil {
		return nil, nil, fmt.Errorf("conf: %s: %w", path, err)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind == yaml.ScalarNode {
			f.lines[strings.ToLower(k.Value)] = k.Line
		}
	}

	byLower := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(f.values)) {
		lower := strings.ToLower(name)
		byLower[lower] = append(byLower[lower], name)
		info, ok := names[lower]
		switch {
		case !ok:
			warnings = append(warnings, fmt.Sprintf("%s: unknown key %q (ignored)", f.where(name), name))
		case info.canonical != name:
			warnings = append(warnings, fmt.Sprintf("%s: key %q read as %q (Pulsar's keys are case-sensitive; Pulsar would ignore it)",
				f.where(name), name, info.canonical))
		}
	}
	for _, lower := range slices.Sorted(maps.Keys(byLower)) {
		if group := byLower[lower]; len(group) > 1 {
			return nil, warnings, fmt.Errorf("conf: %s: keys %q differ only in case", path, group)
		}
	}
	return f, warnings, nil
}

// untime keeps timestamps as the text written (workerId: 2024-01-01), as
// Pulsar's YAML reader does, instead of turning them into time.Time.
func untime(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!timestamp" {
		n.Tag = "!!str"
	}
	for _, c := range n.Content {
		untime(c)
	}
}
