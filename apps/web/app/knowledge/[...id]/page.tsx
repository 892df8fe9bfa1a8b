import type { Metadata } from "next";
import { ItemPage, itemMetadata, type ItemRouteProps } from "@/components/item/item-page";

export const dynamic = "force-dynamic";

export function generateMetadata(props: ItemRouteProps): Promise<Metadata> {
  return itemMetadata("knowledge", props);
}

export default function KnowledgePage(props: ItemRouteProps) {
  return <ItemPage type="knowledge" {...props} />;
}
