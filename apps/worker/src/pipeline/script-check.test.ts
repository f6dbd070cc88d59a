import { describe, expect, it } from "vitest";
import { k6Error } from "./script-check";

describe("k6Error", () => {
  it("gives k6's message of a script that does not compile, without logrus's wrapping", () => {
    const stderr =
      "time=\"2026-11-25T22:01:45Z\" level=error msg=\"could not initialize '/scalelab/load.js': could not load JS test 'file:///scalelab/load.js': file:///scalelab/user.js: Line 3:13 Unexpected token ; (and 1 more errors)\"\n";
    expect(k6Error(stderr)).toBe("file:///scalelab/user.js: Line 3:13 Unexpected token ; (and 1 more errors)");
  });

  it("keeps an exception's text on one line", () => {
    const stderr =
      'time="2026-11-25T22:28:32Z" level=error msg="Error: workload.script exports no default function\\n\\tat file:///scalelab/load.js:91:51(143)\\n" hint="script exception"\n';
    expect(k6Error(stderr)).toBe("Error: workload.script exports no default function at file:///scalelab/load.js:91:51(143)");
  });

  it("falls back to the last lines of other output", () => {
    expect(k6Error("panic: something\nat line 2\n")).toBe("panic: something; at line 2");
  });
});
