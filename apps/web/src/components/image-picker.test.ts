import type { TRunnableImage } from "@scalelab/scenarios/images";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { AppRouter } from "~/server/routers/_app";
import { TRPCProvider } from "~/trpc/client";
import { ImageChoices } from "./image-picker";

const IMAGES: TRunnableImage[] = [
  { reference: "myapp:1.2", id: "sha256:a", size: 91_500_000, created: "2026-11-25T10:00:00.000Z", uploaded: true },
  { reference: "tools/redis:7", id: "sha256:b", size: 120_000_000, created: "2026-11-24T10:00:00.000Z", uploaded: false },
];

/** The picker as a page renders it, with the engine's list already fetched. */
function render(): string {
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity } } });
  const trpcClient = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "http://lab.test/api/trpc" })] });
  const trpc = createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient });
  queryClient.setQueryData(trpc.images.list.queryKey({}), IMAGES);
  const picker = createElement(ImageChoices, { onPicked: () => {} });
  return renderToStaticMarkup(
    createElement(QueryClientProvider, { client: queryClient }, createElement(TRPCProvider, { trpcClient, queryClient, children: picker })),
  );
}

describe("ImageChoices", () => {
  it("offers the engine's images, each with its size and age, and says how many there are", () => {
    const html = render();
    expect(html).toMatch(/<option value="myapp:1.2">myapp:1.2 \(92 MB, built .*, uploaded\)<\/option>/);
    expect(html).toContain('<option value="tools/redis:7">tools/redis:7 (120 MB, built ');
    expect(html).toContain("2 image(s) besides the lab&#x27;s own");
  });

  it("has the upload: a file input for .tar/.tar.gz, a tag, and a build button that waits for both", () => {
    const html = render();
    expect(html).toContain("<summary>Upload build context (.tar/.tar.gz)</summary>");
    expect(html).toMatch(/type="file" accept=".tar,.tar.gz,.tgz,application\/x-tar,application\/gzip"/);
    expect(html).toMatch(/<button type="button" class="btn" disabled="" data-testid="image-upload-build">Upload and build<\/button>/);
  });
});
