package worker

import (
	"testing"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
)

func TestMerge(t *testing.T) {
	str := func(s string) *string { return &s }
	old := utils.FunctionConfig{Name: "f", Parallelism: 2, Output: "out", Inputs: []string{"in"}, Go: str("function://a"), Runtime: "GO"}
	for _, tc := range []struct {
		name  string
		upd   utils.FunctionConfig
		check func(utils.FunctionConfig) bool
	}{
		{"empty update keeps everything", utils.FunctionConfig{},
			func(m utils.FunctionConfig) bool {
				return m.Parallelism == 2 && m.Output == "out" && m.Runtime == "GO" && *m.Go == "function://a"
			}},
		{"set fields replace", utils.FunctionConfig{Parallelism: 5, Output: "o2", Inputs: []string{"i2"}},
			func(m utils.FunctionConfig) bool {
				return m.Parallelism == 5 && m.Output == "o2" && m.Inputs[0] == "i2" && m.Runtime == "GO"
			}},
		{"new code of another kind: runtime follows it", utils.FunctionConfig{Jar: str("f.jar")},
			func(m utils.FunctionConfig) bool { return m.Go == nil && *m.Jar == "f.jar" && m.Runtime == "" }},
		{"explicit runtime wins", utils.FunctionConfig{Py: str("f.py"), Runtime: "PYTHON"},
			func(m utils.FunctionConfig) bool { return m.Go == nil && m.Runtime == "PYTHON" }},
	} {
		if m := merge(old, tc.upd); !tc.check(m) {
			t.Errorf("%s: got %+v", tc.name, m)
		}
	}
}
