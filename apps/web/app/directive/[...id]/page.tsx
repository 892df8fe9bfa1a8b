import type { Metadata } from "next";
import { ItemPage, itemMetadata, type ItemRouteProps } from "@/components/item/item-page";

export const dynamic = "force-dynamic";

export function generateMetadata(props: ItemRouteProps): Promise<Metadata> {
  return itemMetadata("directive", props);
}

export default function DirectivePage(props: ItemRouteProps) {
  return <ItemPage type="directive" {...props} />;
}
