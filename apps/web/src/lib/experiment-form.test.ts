import { readFileSync } from "node:fs";
import { SCALE_FIELDS } from "@scalelab/scenarios/experiments";
import { EXPERIMENT_LIMITS, expandExperiment, ZExperimentCreate, ZVariantDef } from "@scalelab/scenarios/experiments";
import { fieldInfo } from "@scalelab/scenarios/contract";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { fitUsl } from "@scalelab/scenarios/analysis";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SchemaField } from "~/components/form-field";
import {
  baseFromRun,
  buildDefinition,
  canAdd,
  collapseVariantIssues,
  DEFAULT_BASE,
  defaultForm,
  describeRunField,
  EXPERIMENT_FIELDS,
  experimentInfo,
  fieldDomId,
  fieldOfIssue,
  formatSweepValues,
  formFromDefinition,
  newAxisRow,
  newVariantRow,
  normalizeIssuePath,
  parseJsonObject,
  parseSweepValues,
  placeIssues,
  runFieldLabel,
  SCALE_KNOBS,
  settleSecondsOf,
  SWEEP_FIELDS,
  sweepValuesHint,
  USL_MIN_POINTS,
  VARIANT_NAME_INFO,
  type ExperimentFormValues,
} from "./experiment-form";
import { toFieldIssues } from "./issues";
import { fieldHint } from "./run-form";

const form = (v: Partial<ExperimentFormValues>): ExperimentFormValues => ({ ...defaultForm(), name: "x", ...v });

describe("parseSweepValues", () => {
  it("reads numbers, booleans and strings", () => {
    expect(parseSweepValues("1, 2, 4,8")).toEqual({ ok: true, value: [1, 2, 4, 8] });
    expect(parseSweepValues("0.25, .5, 1e1, -3")).toEqual({ ok: true, value: [0.25, 0.5, 10, -3] });
    expect(parseSweepValues("true,false")).toEqual({ ok: true, value: [true, false] });
    expect(parseSweepValues("round_robin, least_conn")).toEqual({ ok: true, value: ["round_robin", "least_conn"] });
  });
  it("keeps quoted values as strings, commas and all", () => {
    expect(parseSweepValues('"8", "a, b" , true')).toEqual({ ok: true, value: ["8", "a, b", true] });
  });
  it("skips empty entries", () => {
    expect(parseSweepValues(" 1, , 2, ")).toEqual({ ok: true, value: [1, 2] });
    expect(parseSweepValues("")).toEqual({ ok: true, value: [] });
  });
  it("does not take half a number for a number", () => {
    expect(parseSweepValues("1x, 2.5.1")).toEqual({ ok: true, value: ["1x", "2.5.1"] });
  });
  it("names an unclosed quote or a missing comma", () => {
    expect(parseSweepValues('1, "abc')).toEqual({ ok: false, error: "A quoted value is not closed." });
    expect(parseSweepValues('"a" "b"')).toEqual({ ok: false, error: "Separate the values with commas." });
  });
  it("formats values back into text that parses to the same values", () => {
    const values = [1, 0.5, true, "round_robin", "8", "a, b", "false", ' x"y '];
    const text = formatSweepValues(values);
    expect(text).toBe('1, 0.5, true, round_robin, "8", "a, b", "false", " x\\"y "');
    expect(parseSweepValues(text)).toEqual({ ok: true, value: values });
  });
});

describe("parseJsonObject", () => {
  it("accepts an object and refuses anything else", () => {
    expect(parseJsonObject('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonObject("[1]")).toEqual({ ok: false, error: "Must be a JSON object ({ … })." });
    expect(parseJsonObject("{a:1}").ok).toBe(false);
    expect((parseJsonObject("{a:1}") as { error: string }).error).toMatch(/^Not valid JSON: /);
  });
  it("reads a blank text as the default given, else as missing", () => {
    expect(parseJsonObject("  ", {})).toEqual({ ok: true, value: {} });
    expect(parseJsonObject("")).toEqual({ ok: false, error: "Give a JSON object." });
  });
});

describe("buildDefinition", () => {
  it("builds the default form into a body the schema takes", () => {
    const { body, errors } = buildDefinition(form({ name: "  replicas " }));
    expect(errors).toEqual({});
    expect(body).toEqual({ name: "replicas", base: DEFAULT_BASE, repetitions: 3, settleSeconds: 5 });
    expect(ZExperimentCreate.safeParse(body).success).toBe(true);
  });
  it("adds variants and sweep axes, an empty patch meaning no change", () => {
    const { body } = buildDefinition(
      form({
        variants: [newVariantRow("one", ""), newVariantRow("two", '{"topology":{"service":{"replicas":2}}}')],
        axes: [newAxisRow("workload.vus", "2, 4")],
        repetitions: "",
        baseline: "two · vus=2",
      }),
    );
    expect(body).toEqual({
      name: "x",
      base: DEFAULT_BASE,
      variants: [
        { name: "one", patch: {} },
        { name: "two", patch: { topology: { service: { replicas: 2 } } } },
      ],
      sweep: [{ field: "workload.vus", values: [2, 4] }],
      settleSeconds: 5,
      baseline: "two · vus=2",
    });
    const parsed = ZExperimentCreate.parse(body);
    const expansion = expandExperiment(parsed);
    expect(expansion.ok && expansion.variants.map((v) => v.name)).toEqual(["one · vus=2", "one · vus=4", "two · vus=2", "two · vus=4"]);
  });
  it("names every textarea whose JSON does not parse and builds no body", () => {
    const { body, errors } = buildDefinition(
      form({ base: "{", variants: [newVariantRow("a", "{}"), newVariantRow("b", "[]")], axes: [newAxisRow("workload.vus", '"1')] }),
    );
    expect(body).toBeNull();
    expect(Object.keys(errors).sort()).toEqual(["base", "sweep[0].values", "variants[1].patch"]);
  });
  it("hands a number input's text on as a number for the server to judge", () => {
    expect(buildDefinition(form({ repetitions: "50", settleSeconds: "0" })).body).toMatchObject({ repetitions: 50, settleSeconds: 0 });
  });
});

describe("formFromDefinition", () => {
  it("round-trips a definition through the form", () => {
    const def = ZExperimentCreate.parse({
      name: "grid",
      base: DEFAULT_BASE,
      variants: [{ name: "a", patch: { workload: { vus: 8 } } }],
      sweep: [{ field: "topology.balancer.algorithm", values: ["round_robin", "least_conn"] }],
      repetitions: 4,
      settleSeconds: 2,
      baseline: "a · algorithm=least_conn",
      thresholds: [
        { metric: "p95", op: "<", value: 250 },
        { metric: "rps", compare: "baseline", worseBy: 5 },
      ],
    });
    const values = formFromDefinition(def);
    expect(values.name).toBe("grid");
    expect(values.axes[0]).toMatchObject({ field: "topology.balancer.algorithm", values: "round_robin, least_conn" });
    expect(buildDefinition(values).body).toEqual(def);
  });
  it("marks a copy in its name", () => {
    expect(formFromDefinition({ name: "grid", base: {} }, { copy: true })).toMatchObject({
      name: "grid (copy)",
      repetitions: "",
      settleSeconds: "",
    });
  });
  it("gives each row its own id", () => {
    const values = formFromDefinition({ name: "g", base: {}, variants: [{ name: "a" }, { name: "b" }] });
    expect(values.variants[0]!.id).not.toBe(values.variants[1]!.id);
    expect(values.variants[0]!.patch).toBe("{}");
  });
});

describe("baseFromRun", () => {
  it("keeps the definition of the faults and leaves out what happened and the run's name", () => {
    const run = {
      name: "old",
      topology: { service: { replicas: 2 } },
      workload: { vus: 3 },
      faults: [{ at: 3, action: "stop", target: { role: "app", index: 0 }, actual: { atMs: 3010, lagMs: 10, tookMs: 200 } }],
    };
    expect(baseFromRun(run)).toEqual({
      topology: run.topology,
      workload: run.workload,
      faults: [{ at: 3, action: "stop", target: { role: "app", index: 0 } }],
    });
    expect(baseFromRun({ ...run, faults: [] })).toEqual({ topology: run.topology, workload: run.workload });
  });
});

describe("issue placement", () => {
  const rows = { variants: 2, axes: 1 };

  it("normalizes Zod's dotted indices to brackets", () => {
    expect(normalizeIssuePath("variants.1.patch.topology.service.cpus")).toBe("variants[1].patch.topology.service.cpus");
    expect(normalizeIssuePath("sweep.0.values.2")).toBe("sweep[0].values[2]");
    expect(normalizeIssuePath("base.faults.0.at")).toBe("base.faults[0].at");
    expect(normalizeIssuePath("variants[1].name")).toBe("variants[1].name");
  });

  it("puts an issue on the field its path names", () => {
    expect(fieldOfIssue("name", rows)).toBe("name");
    expect(fieldOfIssue("repetitions", rows)).toBe("repetitions");
    expect(fieldOfIssue("base.workload.vus", rows)).toBe("base");
    expect(fieldOfIssue("base", rows)).toBe("base");
    expect(fieldOfIssue("variants[1].patch.topology.service.cpus", rows)).toBe("variants[1].patch");
    expect(fieldOfIssue("variants.0.name", rows)).toBe("variants[0].name");
    expect(fieldOfIssue("sweep[0].values", rows)).toBe("sweep[0].values");
    expect(fieldOfIssue("sweep.0.values.3", rows)).toBe("sweep[0].values");
    expect(fieldOfIssue("sweep[0].field", rows)).toBe("sweep[0].field");
    expect(fieldOfIssue("variants", rows)).toBe("variants");
  });

  it("falls back to the section for a row no longer there, and to none for an unknown path", () => {
    expect(fieldOfIssue("variants[5].name", rows)).toBe("variants");
    expect(fieldOfIssue("sweep[3].values", rows)).toBe("sweep");
    expect(fieldOfIssue("", rows)).toBeNull();
    expect(fieldOfIssue("somethingElse", rows)).toBeNull();
  });

  it("places the schema's own issues", () => {
    const r = ZExperimentCreate.safeParse({
      name: "",
      base: {},
      variants: [{ name: "a" }, { name: "a" }],
      sweep: [{ field: "nope", values: [] }],
      repetitions: 50,
    });
    expect(r.success).toBe(false);
    const { all, byField } = placeIssues(toFieldIssues(r.success ? [] : r.error.issues), rows);
    expect(all.every((i) => i.field !== null)).toBe(true);
    expect(Object.keys(byField).sort()).toEqual(["name", "repetitions", "sweep[0].field", "sweep[0].values", "variants[1].name"]);
  });

  it("drops duplicates and keeps several issues of one field", () => {
    const { all, byField } = placeIssues(
      [
        { path: "base.workload.vus", message: "a" },
        { path: "base.workload.vus", message: "a" },
        { path: "base.topology", message: "b" },
        { path: "", message: "c" },
      ],
      rows,
    );
    expect(all).toHaveLength(3);
    expect(byField.base?.map((i) => i.message)).toEqual(["a", "b"]);
    expect(all.find((i) => i.message === "c")?.field).toBeNull();
  });

  it("merges a problem repeated at every point of a sweep into one issue naming the variants", () => {
    const cpus = (v: string) => ({
      path: "variants[1].patch.topology.service.cpus",
      message: `variant "${v}": service.cpus must be between 0.05 and 64`,
    });
    const { all } = placeIssues(
      [
        cpus("b · vus=2"),
        { path: "sweep[0].values", message: 'variant "a · vus=999": workload.vus must be between 1 and 1000' },
        cpus("b · vus=4"),
        cpus("b · vus=999"),
      ],
      rows,
    );
    expect(all).toEqual([
      {
        path: "variants[1].patch.topology.service.cpus",
        field: "variants[1].patch",
        message: '3 variants ("b · vus=2", "b · vus=4", "b · vus=999"): service.cpus must be between 0.05 and 64',
      },
      { path: "sweep[0].values", field: "sweep[0].values", message: 'variant "a · vus=999": workload.vus must be between 1 and 1000' },
    ]);
  });

  it("names the first three variants of a long list", () => {
    const issues = ["1", "2", "3", "4", "5"].map((v) => ({ path: "base.workload.vus", message: `variant "n=${v}": too many` }));
    expect(collapseVariantIssues(issues)).toEqual([
      { path: "base.workload.vus", message: '5 variants ("n=1", "n=2", "n=3", 2 more): too many' },
    ]);
  });

  it("makes DOM ids of field keys", () => {
    expect(fieldDomId("variants[1].patch")).toBe("xf-variants-1-patch");
    expect(fieldDomId("name")).toBe("xf-name");
  });
});

describe("the form's settings come from the schema", () => {
  const defaults = ZExperimentCreate.parse({ name: "x", base: {} });
  const render = (spec: (typeof EXPERIMENT_FIELDS)[number], value = "") =>
    renderToStaticMarkup(
      createElement(SchemaField, {
        info: experimentInfo(spec.path),
        id: fieldDomId(spec.path),
        testIds: { control: spec.testId, error: "field-issue" },
        label: spec.label,
        hint: spec.hint,
        placeholder: spec.placeholder,
        errors: [],
        bind: { value, onChange: () => undefined },
      }),
    );

  it("has a line in EXPERIMENT_FIELDS for every number or text setting of ZExperimentCreate", () => {
    // regression ({ worseBy, p }, the check against the baseline of the name) is kept as the definition has it.
    const own = ["base", "variants", "sweep", "baseline", "thresholds", "regression"];
    const settings = Object.keys(ZExperimentCreate.shape).filter((k) => !own.includes(k));
    expect(EXPERIMENT_FIELDS.map((f) => f.path).sort()).toEqual(settings.sort());
  });

  it("resolves every field's range and default from the schema and names the range in its hint", () => {
    for (const spec of EXPERIMENT_FIELDS) {
      const info = experimentInfo(spec.path);
      expect(info, spec.path).toEqual(fieldInfo(ZExperimentCreate, spec.path));
      if (info.kind !== "number") continue;
      const limits = EXPERIMENT_LIMITS[spec.path as "repetitions" | "settleSeconds"];
      expect([info.min, info.max], spec.path).toEqual([limits.min, limits.max]);
      expect(info.default, spec.path).toBe(defaults[spec.path as "repetitions" | "settleSeconds"]);
      expect(fieldHint(info, spec.hint), spec.path).toMatch(new RegExp(`^${limits.min}–${limits.max} · `));
    }
    expect(experimentInfo("repetitions")).toMatchObject({ min: 1, max: 20, default: 3 });
    expect(experimentInfo("settleSeconds")).toMatchObject({ min: 0, max: 120, default: 5 });
  });

  it("draws each field with the schema's bounds, length, default and range", () => {
    for (const spec of EXPERIMENT_FIELDS) {
      const info = experimentInfo(spec.path);
      const html = render(spec);
      expect(html, spec.path).toContain(`data-testid="${spec.testId}"`);
      expect(html, spec.path).toContain(`id="${fieldDomId(spec.path)}"`);
      if (info.kind === "number") {
        expect(html, spec.path).toContain(`min="${info.min}"`);
        expect(html, spec.path).toContain(`max="${info.max}"`);
        expect(html, spec.path).toContain(`placeholder="${info.default}"`);
        expect(html, spec.path).toContain(`${info.min}–${info.max} · `);
      }
      if (info.kind === "text") expect(html, spec.path).toContain(`maxLength="${info.maxLength}"`);
    }
    expect(
      render(
        EXPERIMENT_FIELDS.find((f) => f.path === "repetitions")!,
        "4",
      ),
    ).toContain('value="4"');
  });

  it("starts from the schema's defaults and falls back to them when a field is emptied", () => {
    const form = defaultForm();
    for (const spec of EXPERIMENT_FIELDS) {
      const d = experimentInfo(spec.path).default;
      expect(form[spec.path], spec.path).toBe(d === undefined ? "" : String(d));
    }
    expect(settleSecondsOf({ settleSeconds: "" })).toBe(defaults.settleSeconds);
    expect(settleSecondsOf({ settleSeconds: "7" })).toBe(7);
  });

  it("limits names to the schema's length, a copy's too", () => {
    expect(experimentInfo("name")).toMatchObject({ kind: "text", maxLength: EXPERIMENT_LIMITS.name.max });
    expect(VARIANT_NAME_INFO).toEqual(fieldInfo(ZVariantDef, "name"));
    expect(VARIANT_NAME_INFO).toMatchObject({ kind: "text", maxLength: EXPERIMENT_LIMITS.variantName.max });
    const long = "n".repeat(EXPERIMENT_LIMITS.name.max);
    expect(formFromDefinition({ name: long, base: {} }, { copy: true }).name).toHaveLength(EXPERIMENT_LIMITS.name.max);
  });

  it("offers variants and axes up to the schema's counts", () => {
    const rows = (n: number) => Array.from({ length: n }, () => newAxisRow("workload.vus", "1"));
    const { axes, variants } = EXPERIMENT_LIMITS;
    expect(canAdd({ variants: [], axes: rows(axes.max - 1) }, "axes")).toBe(true);
    expect(canAdd({ variants: [], axes: rows(axes.max) }, "axes")).toBe(false);
    const names = (n: number) => Array.from({ length: n }, (_, i) => newVariantRow(`v${i}`));
    expect(canAdd({ variants: names(variants.max), axes: [] }, "variants")).toBe(false);
    const sweep = (n: number) => Array.from({ length: n }, (_, i) => ({ field: `workload.f${i}`, values: [1] }));
    expect(ZExperimentCreate.safeParse({ name: "x", base: {}, sweep: sweep(axes.max) }).success).toBe(true);
    expect(ZExperimentCreate.safeParse({ name: "x", base: {}, sweep: sweep(axes.max + 1) }).success).toBe(false);
  });

  it("describes the sweep fields by the run form's labels and the run schema's ranges or values", () => {
    for (const path of SWEEP_FIELDS) {
      const info = fieldInfo(ZRunCreate, path);
      const about = describeRunField(path);
      expect(about, path).not.toBeNull();
      if (info.kind === "number") expect(about, path).toContain(`${info.min}–${info.max}`);
      if (info.kind === "enum") expect(about, path).toContain(info.options.join(", "));
    }
    expect(describeRunField("topology.service.replicas")).toBe("Service: Replicas · 1–16");
    expect(describeRunField("workload.nothing")).toBeNull();
    // Every scale knob has a field in the run form, named in its words.
    expect(SCALE_KNOBS).toBe("replicas, virtual users, connections, threads");
    for (const f of SCALE_FIELDS) expect(runFieldLabel(f), f).toBeDefined();
    const points = (n: number) => Array.from({ length: n }, (_, i) => ({ n: i + 1, x: 100 * (i + 1) }));
    expect(fitUsl(points(USL_MIN_POINTS - 1))).toMatchObject({
      ok: false,
      reason: expect.stringContaining(`at least ${USL_MIN_POINTS} distinct`),
    });
    expect(JSON.stringify(fitUsl(points(USL_MIN_POINTS)))).not.toContain("distinct points");
  });

  it("says how many sweep values the schema takes, then what the field takes", () => {
    const { min, max } = EXPERIMENT_LIMITS.values;
    expect(sweepValuesHint({ field: "", values: "" })).toMatch(new RegExp(`^${min}–${max} comma-separated`));
    expect(sweepValuesHint({ field: "workload.vus", values: "1, 2" })).toBe("2 values: 1, 2 · Workload: Virtual users · 1–1000");
  });

  it("starts from a base that makes a valid run", () => {
    const expansion = expandExperiment(ZExperimentCreate.parse({ name: "x", base: DEFAULT_BASE }));
    expect(expansion.ok).toBe(true);
  });

  it("restates no bound in its markup (the experiment form, the preset card)", () => {
    for (const file of ["../components/experiment-form.tsx", "../components/preset-list.tsx"]) {
      const source = readFileSync(new URL(file, import.meta.url), "utf8");
      expect(source, file).not.toMatch(/\b(min|max|maxLength|step)=\{\s*\d/);
      expect(source, file).not.toMatch(/\d\s*–\s*\d/);
      expect(source, file).not.toMatch(/placeholder="\d+"/);
    }
  });
});
