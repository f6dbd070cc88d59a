import { RunsBrowser } from "~/components/runs-browser";

export default function RunsPage() {
  return <RunsBrowser />;
}
