import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { Nav } from "~/components/nav";
import { ASSET_RELOAD_SCRIPT } from "~/lib/asset-reload";
import { Providers } from "~/trpc/client";
import "./globals.css";

export const metadata: Metadata = {
  title: "Scalelab",
  description: "Scaling experiments on real containers",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        {/* Before Next's own scripts: a page whose chunk failed to load reloads itself once (~/lib/asset-reload). */}
        <script dangerouslySetInnerHTML={{ __html: ASSET_RELOAD_SCRIPT }} />
      </head>
      <body>
        <header className="topbar">
          <Link href="/" className="brand" prefetch={false}>
            Scalelab
          </Link>
          <Nav />
        </header>
        <main className="page">
          <Providers>{children}</Providers>
        </main>
      </body>
    </html>
  );
}
