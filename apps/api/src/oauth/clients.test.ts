import assert from "node:assert/strict";
import { test } from "node:test";
import { ClientDirectory } from "./client-directory.ts";
import { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { findClient, isAllowedRedirectUri, thirdPartyClient } from "./clients.ts";
import { OAuthError } from "./errors.ts";

const cli = findClient("rye-cli")!;

test("rye-cli: loopback IP literals, any port, exact path (RFC 8252 §7.3)", () => {
  for (const uri of ["http://127.0.0.1:1/callback", "http://127.0.0.1:53211/callback", "http://127.0.0.1:65535/callback", "http://[::1]:8080/callback"]) {
    assert.ok(isAllowedRedirectUri(cli, uri), uri);
  }
});

test("rye-cli: everything else is refused, without normalisation", () => {
  for (const uri of [
    "http://localhost:8080/callback", // BCP: no localhost
    "https://127.0.0.1:8080/callback",
    "https://evil.example/callback",
    "http://127.0.0.1/callback",
    "http://127.0.0.1:0/callback",
    "http://127.0.0.1:08080/callback",
    "http://127.0.0.1:65536/callback",
    "http://127.0.0.1:8080/callback/",
    "http://127.0.0.1:8080/Callback",
    "http://127.0.0.1:8080/other",
    "http://127.0.0.1:8080/callback?x=1",
    "http://127.0.0.1:8080/callback#x",
    "http://127.0.0.1:8080/x/../callback",
    "http://user@127.0.0.1:8080/callback",
    "http://127.0.0.1.evil.example:8080/callback",
    "http://127.1:8080/callback",
    "http://[::ffff:127.0.0.1]:8080/callback",
    "HTTP://127.0.0.1:8080/callback",
    " http://127.0.0.1:8080/callback",
    "http://127.0.0.1:8080/callback\n",
  ]) {
    assert.equal(isAllowedRedirectUri(cli, uri), false, uri);
  }
});

test("rye-web is reserved: known, but without redirects or grants", () => {
  const web = findClient("rye-web")!;
  assert.deepEqual(web.grantTypes, []);
  assert.equal(isAllowedRedirectUri(web, "http://127.0.0.1:8080/callback"), false);
});

test("unknown clients are invalid_client", async () => {
  const directory = new ClientDirectory(new ClientMetadataDocuments({ allowPrivateAddresses: false, allowHttp: false }), null, false);
  for (const id of [undefined, "", "other", "RYE-CLI", "rye-dcr-0123456789abcdef0123456789abcdef", "http://127.0.0.1:1/client.json"]) {
    await assert.rejects(directory.require(id), (err: unknown) => err instanceof OAuthError && err.error === "invalid_client" && err.status === 401, String(id));
  }
});

test("third-party clients: only their registered redirect URIs, compared as strings; items:read on /mcp only", () => {
  const client = thirdPartyClient("https://app.example/client.json", "metadata-document", "App", ["https://app.example/cb", "http://127.0.0.1:3000/cb"]);
  assert.ok(isAllowedRedirectUri(client, "https://app.example/cb"));
  assert.ok(isAllowedRedirectUri(client, "http://127.0.0.1:3000/cb"));
  for (const uri of ["https://app.example/cb/", "https://APP.example/cb", "https://app.example/cb?x=1", "http://127.0.0.1:3001/cb", "http://[::1]:3000/cb", "https://app.example:443/cb"]) {
    assert.equal(isAllowedRedirectUri(client, uri), false, uri);
  }
  assert.deepEqual(client.allowedScopes, ["items:read"]);
  assert.deepEqual(client.resources, ["mcp"]);
  assert.equal(client.grantTypes.includes("urn:ietf:params:oauth:grant-type:device_code"), false);
});
