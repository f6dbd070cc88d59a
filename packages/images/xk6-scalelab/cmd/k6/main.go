// The lab's k6: k6 itself with the scalelab output compiled in, as xk6 builds it (xk6's generated
// main is this file); a module of the repository so that go.sum pins every dependency.
package main

import (
	k6cmd "go.k6.io/k6/cmd"

	_ "github.com/scalelab/xk6-scalelab"
)

func main() {
	k6cmd.Execute()
}
