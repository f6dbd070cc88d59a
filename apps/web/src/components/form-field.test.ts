import { createElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { FormProvider, useForm } from "react-hook-form";
import { describe, expect, it } from "vitest";
import { DEFAULT_FORM, SECTIONS, type FieldSpec, type RunFormValues } from "~/lib/run-form";
import { FormField } from "./form-field";

const spec = (id: string): FieldSpec => SECTIONS.flatMap((s) => s.fields).find((f) => (f.id ?? f.path) === id)!;

/** A run-form field rendered inside its form, as new-run-form.tsx does. */
function renderField(f: FieldSpec): string {
  function Form({ children }: { children: ReactNode }) {
    const form = useForm<RunFormValues>({ defaultValues: DEFAULT_FORM });
    return createElement(FormProvider<RunFormValues>, { ...form, children });
  }
  return renderToStaticMarkup(createElement(Form, null, createElement(FormField, { spec: f })));
}

describe("FormField (the run form)", () => {
  it("keeps the run form's ids and test ids, with the schema's bounds, default and range", () => {
    const html = renderField(spec("replicas"));
    expect(html).toContain('<label for="f-replicas">Replicas</label>');
    expect(html).toContain('data-testid="field-replicas"');
    expect(html).toMatch(/min="1" max="16" step="1"/);
    expect(html).toContain('<div class="hint" id="f-replicas-hint">1–16</div>');
  });

  it("draws a segmented enum as radio buttons with their test ids", () => {
    const html = renderField(spec("loadgen"));
    expect(html).toContain('<span class="label" id="f-loadgen">Load generator</span>');
    expect(html).toContain('data-testid="loadgen-k6"');
    expect(html).toContain('data-testid="loadgen-wrk"');
    expect(html).toMatch(/<input type="radio" name="workload.loadgen" value="wrk"\/>wrk — connections, fastest/);
  });

  it("limits text to the schema's length and shows a float's range", () => {
    expect(renderField(spec("name"))).toContain('maxLength="200"');
    expect(renderField(spec("cpus"))).toMatch(/min="0.05" max="64" step="0.05" placeholder="unlimited"/);
  });
});
