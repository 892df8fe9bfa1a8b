import assert from "node:assert/strict";
import { test } from "node:test";
import { supabaseAuthSettings } from "./supabase-auth.ts";

test("the Supabase form needs both the project URL and the anon key", () => {
  assert.equal(supabaseAuthSettings({}), null);
  assert.equal(supabaseAuthSettings({ SUPABASE_URL: "https://abcd.supabase.co" }), null, "no anon key: supabase-js cannot call Auth");
  assert.equal(supabaseAuthSettings({ SUPABASE_ANON_KEY: "k" }), null);
  assert.equal(supabaseAuthSettings({ SUPABASE_URL: "  ", SUPABASE_ANON_KEY: "k" }), null);
  assert.deepEqual(supabaseAuthSettings({ SUPABASE_URL: " https://abcd.supabase.co/ ", SUPABASE_ANON_KEY: " key " }), { url: "https://abcd.supabase.co", anonKey: "key" });
});
