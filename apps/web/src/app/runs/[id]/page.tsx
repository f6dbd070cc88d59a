import { RunPage } from "~/components/run-page";

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <RunPage id={id} />;
}
