"use client";

import dynamic from "next/dynamic";
import { useEffect, useRef } from "react";
import "swagger-ui-react/swagger-ui.css";
import "./api-reference.css";

// Swagger UI renders in the browser only; its code and styles are bundled with the dashboard (no CDN: the lab may have no internet).
const SwaggerUI = dynamic(() => import("swagger-ui-react"), {
  ssr: false,
  loading: () => <div className="chart-empty">Loading the reference…</div>,
});

/** Swagger UI's selects without a name (the servers, a body's examples), named for assistive technology. */
const UNNAMED_SELECTS: [selector: string, label: string][] = [
  ["select#servers", "Server"],
  ["select.examples-select-element", "Example"],
];

function nameSelects(root: HTMLElement) {
  for (const [selector, label] of UNNAMED_SELECTS) {
    for (const select of root.querySelectorAll<HTMLSelectElement>(`${selector}:not([aria-label])`))
      select.setAttribute("aria-label", label);
  }
}

/** The REST API's OpenAPI document (/api/v1/openapi.json) rendered by Swagger UI: its operations, schemas and request examples. */
export function ApiReference() {
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    const observer = new MutationObserver(() => nameSelects(el));
    observer.observe(el, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
  return (
    <div className="api-reference" data-testid="api-reference" ref={root}>
      <SwaggerUI url="/api/v1/openapi.json" docExpansion="list" defaultModelsExpandDepth={-1} displayRequestDuration />
    </div>
  );
}
