import { ZRunCreate } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { firstRunForm, firstRunSentence } from "./first-run";
import { toRunInput } from "./run-form";

describe("the first run", () => {
  it("is a valid run definition as the form sends it, small enough for a first look", () => {
    const run = ZRunCreate.parse(toRunInput(firstRunForm()));
    expect(run.name).toBe("My first run");
    expect(run.topology.service.replicas).toBe(2);
    expect(run.topology.balancer.kind).toBe("nginx");
    expect(run.workload.durationSeconds).toBeLessThanOrEqual(10);
    expect(run.workload.vus).toBe(2);
  });

  it("is said as it is sent", () => {
    expect(firstRunSentence()).toBe(
      "2 replicas of the lab's test service limited to 0.2 CPU each, behind nginx, loaded by k6 with 2 virtual users for 8 s: about 23 s in all.",
    );
    const v = firstRunForm();
    v.topology.service.replicas = 4;
    v.workload.durationSeconds = 30;
    expect(firstRunSentence(v)).toMatch(/^4 replicas .* for 30 s: about 45 s in all\.$/);
  });
});
