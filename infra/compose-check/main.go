// compose-check loads docker-compose.yml with compose-go, the library `docker compose` itself uses, and prints
// the resolved project as JSON: the schema, the YAML anchors and merges, and `${VAR:?message}` interpolation are
// applied exactly as `docker compose config` would, without needing a Docker engine (none runs on the CI machines).
// tests/integration/compose.int.test.ts checks the result against the code (entry points, config schemas, ports).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <docker-compose.yml>...")
		os.Exit(2)
	}
	opts, err := cli.NewProjectOptions(os.Args[1:], cli.WithOsEnv, cli.WithName("formgate"))
	if err != nil {
		fail(err)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalJSON()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
