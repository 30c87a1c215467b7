package conf

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Decoding is strict on purpose: mapstructure's weak typing would turn
// 6750.9 into 6750, "010" into 8 and true into 1. Values come from YAML
// (typed), the environment (strings) or pflag (typed by the flag).

// setField stores raw into f, a field of Config.
func setField(f reflect.Value, raw any) error {
	switch f.Kind() {
	case reflect.String:
		s, err := toString(raw)
		if err != nil {
			return err
		}
		f.SetString(s)
	case reflect.Bool:
		b, err := toBool(raw)
		if err != nil {
			return err
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := toInt(raw)
		if err != nil {
			return err
		}
		if f.OverflowInt(n) {
			return errors.New("out of range")
		}
		f.SetInt(n)
	case reflect.Float64:
		x, err := toFloat(raw)
		if err != nil {
			return err
		}
		f.SetFloat(x)
	case reflect.Slice: // []string
		ss, err := toStrings(raw)
		if err != nil {
			return err
		}
		f.Set(reflect.ValueOf(ss))
	default:
		panic("conf: unsupported field kind " + f.Kind().String())
	}
	return nil
}

func toString(raw any) (string, error) {
	switch v := raw.(type) {
	case string:
		return v, nil
	case bool, int, int64, uint64, float64: // YAML: workerId: 123
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("want a string, got %s", kindOf(raw))
}

func toBool(raw any) (bool, error) {
	switch v := raw.(type) {
	case bool:
		return v, nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return false, errors.New("want true or false")
		}
		return b, nil
	}
	return false, fmt.Errorf("want true or false, got %s", kindOf(raw))
}

func toInt(raw any) (int64, error) {
	switch v := raw.(type) {
	case int:
		return int64(v), nil
	case int64:
		return v, nil
	case uint64:
		if v > math.MaxInt64 {
			return 0, errors.New("out of range")
		}
		return int64(v), nil
	case float64:
		if v != math.Trunc(v) || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, errors.New("want a whole number")
		}
		if v < math.MinInt64 || v >= math.MaxInt64 {
			return 0, errors.New("out of range")
		}
		return int64(v), nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return 0, errors.New("out of range")
		}
		if err != nil {
			return 0, errors.New("want a whole number")
		}
		return n, nil
	}
	return 0, fmt.Errorf("want a whole number, got %s", kindOf(raw))
}

func toFloat(raw any) (float64, error) {
	var x float64
	switch v := raw.(type) {
	case int, int64, uint64:
		n, err := toInt(v)
		if err != nil {
			return 0, err
		}
		x = float64(n)
	case float64:
		x = v
	case string:
		var err error
		if x, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return 0, errors.New("want a number")
		}
	default:
		return 0, fmt.Errorf("want a number, got %s", kindOf(raw))
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, errors.New("want a finite number")
	}
	return x, nil
}

// toStrings accepts a YAML or flag list of scalars, or one comma-separated
// string (environment, or Pulsar's "a,b" style). Empty items are dropped.
func toStrings(raw any) ([]string, error) {
	var items []string
	switch v := raw.(type) {
	case string:
		items = strings.Split(v, ",")
	case []string:
		items = v
	case []any:
		for _, e := range v {
			s, err := toString(e)
			if err != nil {
				return nil, fmt.Errorf("list item: %w", err)
			}
			items = append(items, s)
		}
	default:
		return nil, fmt.Errorf("want a list, got %s", kindOf(raw))
	}
	out := []string{}
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

func kindOf(raw any) string {
	switch raw.(type) {
	case map[string]any, map[any]any:
		return "a mapping"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	case int, int64, uint64, float64:
		return "a number"
	case string:
		return "a string"
	}
	return fmt.Sprintf("%T", raw)
}

// show renders a value for an error message, shortened.
func show(raw any) string {
	var s string
	switch v := raw.(type) {
	case string:
		s = strconv.Quote(v)
	case map[string]any, map[any]any:
		return "(mapping)"
	default:
		s = fmt.Sprint(v)
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}
