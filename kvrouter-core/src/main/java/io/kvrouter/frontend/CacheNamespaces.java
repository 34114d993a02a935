package io.kvrouter.frontend;

import io.kvrouter.frontend.openai.CacheSalts;
import io.kvrouter.frontend.openai.OpenAiRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The cache namespace of a request: the tenant its KV blocks are cached and reused under, in the
 * router's index and in the engine (docs/security.md, "Tenant cache isolation").
 *
 * <h2>The client's salt</h2>
 *
 * As Dynamo resolves it (ai-dynamo/dynamo PR #8197): the {@value #TENANT_HEADER} header when it is
 * not empty (meant to be set by a gateway, which must then replace any a client sent: the router
 * cannot tell who wrote it), else the body's {@code nvext.cache_salt}, else its {@code cache_salt}
 * ({@link CacheSalts}). An empty header counts as absent, as in Dynamo; a header that is too long
 * is refused with a 400 naming it.
 *
 * <h2>A namespace per API key ({@code --cache-salt-per-key})</h2>
 *
 * Every request's namespace then starts from the name of the key it came with, so that no client,
 * whatever salt it sends, lands in another key's namespace:
 *
 * <pre>
 *   key NAME, no salt      key/NAME
 *   key NAME, salt S       key/NAME/S
 *   no key (open route)    open        or   open/S
 * </pre>
 *
 * The encoding is injective: a key's name is letters, digits, {@code _ . -} only ({@code
 * config.ApiKey}), never {@code /}, so the first {@code /} after {@code key/} ends the name and
 * everything after it is the salt, which cannot be empty; and {@code key/...} and {@code open...}
 * differ in their first character. Two requests share a namespace exactly when they came with the
 * same key (or both with none) and the same salt (or both with none). A client's own salt cannot
 * reach a namespace outside this scheme either: in this mode every namespace is built here. Without
 * the flag the namespace is the client's salt as given (none without one), as in Dynamo and vLLM.
 */
final class CacheNamespaces {
  /** The gateway header that names the tenant (Dynamo's). */
  static final String TENANT_HEADER = "x-tenant-id";

  private final boolean perKey;

  /**
   * @param perKey every key its own tenant ({@code --cache-salt-per-key})
   */
  CacheNamespaces(boolean perKey) {
    this.perKey = perKey;
  }

  /**
   * {@code request} under its effective namespace.
   *
   * @throws io.kvrouter.protocol.InvalidRequestException when the tenant header is too long
   */
  OpenAiRequest resolve(RoutingContext ctx, OpenAiRequest request) {
    String header = ctx.request().getHeader(TENANT_HEADER);
    String salt =
        header == null || header.isEmpty()
            ? request.cacheSalt()
            : CacheSalts.checked(TENANT_HEADER, header);
    String namespace = perKey ? perKey(ApiKeyAuth.keyName(ctx).orElse(null), salt) : salt;
    return request.withCacheSalt(namespace);
  }

  /**
   * The namespace of a request that came with key {@code keyName} (null: none) and {@code salt}.
   */
  static String perKey(String keyName, String salt) {
    String tenant = keyName == null ? "open" : "key/" + keyName;
    return salt == null ? tenant : tenant + "/" + salt;
  }
}
