import { TokenList } from "~/components/token-list";

export const metadata = { title: "API tokens · Scalelab" };

export default function TokensPage() {
  return <TokenList />;
}
