import { NewExperiment } from "~/components/experiment-form";

export default async function NewExperimentPage({ searchParams }: { searchParams: Promise<{ from?: string | string[] }> }) {
  const { from } = await searchParams;
  const id = Array.isArray(from) ? from[0] : from;
  return <NewExperiment from={id || undefined} />;
}
