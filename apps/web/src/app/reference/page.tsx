import type { Metadata } from "next";
import { ApiReference } from "~/components/api-reference";

export const metadata: Metadata = { title: "API reference · Scalelab" };

export default function Page() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>API reference</h1>
          <div className="sub">
            The REST API under /api/v1, from its OpenAPI document (
            <a href="/api/v1/openapi.json" style={{ textDecoration: "underline" }}>
              openapi.json
            </a>
            ): every operation with its parameters, bodies and answers. Open one to see its request examples; &quot;Try it out&quot; sends
            it to this lab.
          </div>
        </div>
      </div>
      <section className="panel">
        <ApiReference />
      </section>
    </>
  );
}
