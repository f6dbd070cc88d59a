package config

import "testing"

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestLoadDefaults(t *testing.T) {
	cfg, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Port: 8080, Threads: 0, CPUIterations: 1000}
	if cfg != want {
		t.Fatalf("got %+v, want %+v", cfg, want)
	}
}

func TestLoadOverrides(t *testing.T) {
	cfg, err := Load(env(map[string]string{"TESTBED_PORT": "9000", "TESTBED_THREADS": "1", "TESTBED_CPU_ITERATIONS": "50"}))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Port: 9000, Threads: 1, CPUIterations: 50}
	if cfg != want {
		t.Fatalf("got %+v, want %+v", cfg, want)
	}
}

func TestLoadRejectsInvalid(t *testing.T) {
	for _, vars := range []map[string]string{
		{"TESTBED_PORT": "http"},
		{"TESTBED_PORT": "70000"},
		{"TESTBED_THREADS": "0"},
		{"TESTBED_CPU_ITERATIONS": "0"},
		{"TESTBED_CPU_ITERATIONS": "100001"},
	} {
		if _, err := Load(env(vars)); err == nil {
			t.Errorf("Load(%v): want an error", vars)
		}
	}
}
