package io.kvrouter.protocol.vllm;

import java.util.List;

/**
 * How a cache namespace travels through vLLM, as Dynamo passes it (ai-dynamo/dynamo {@code
 * lib/kv-router/src/zmq_wire/extra_keys.rs}, {@code components/src/dynamo/vllm/handlers.py}):
 *
 * <ul>
 *   <li>To the engine, as vLLM's request field {@code cache_salt}, tagged: {@value #TAG} followed
 *       by the namespace. vLLM treats the whole string as an opaque salt and mixes it into the
 *       engine hash of the sequence's first block (so every later block differs too).
 *   <li>Back in vLLM's {@code BlockStored} events, in {@code extra_keys}: the first block of a
 *       sequence lists the salt among its keys (after the LoRA name, if any). The tag is what tells
 *       it from a LoRA name or a legacy multimodal identifier, which are bare strings too: an
 *       untagged string is never read as a namespace.
 * </ul>
 */
public final class VllmCacheSalt {
  /** The prefix Dynamo puts before a namespace in vLLM's {@code cache_salt}. */
  public static final String TAG = "dynamo-cache-salt:";

  private VllmCacheSalt() {}

  /** vLLM's {@code cache_salt} for {@code namespace}: the namespace tagged. */
  public static String engineSalt(String namespace) {
    return TAG + namespace;
  }

  /**
   * The namespace a vLLM {@code cache_salt} stands for: the text after the tag when it is tagged,
   * else the whole salt (a client that salts vLLM directly names its own namespace); null for a
   * null or empty salt.
   */
  public static String namespaceOf(String engineSalt) {
    if (engineSalt == null || engineSalt.isEmpty()) {
      return null;
    }
    String namespace = engineSalt.startsWith(TAG) ? engineSalt.substring(TAG.length()) : engineSalt;
    return namespace.isEmpty() ? null : namespace;
  }

  /**
   * The namespace a store names for itself, as Dynamo's decoder finds it: its top-level {@code
   * cache_salt} when not empty, else the tagged salt in its first block's {@code extra_keys}
   * ({@link #namespaceIn}); null when it names none (a store that continues a salted sequence names
   * none: see {@link SaltedChains}).
   */
  public static String namedBy(VllmEvent.BlockStored stored) {
    if (stored.cacheSalt() != null && !stored.cacheSalt().isEmpty()) {
      return stored.cacheSalt();
    }
    List<List<Object>> keys = stored.extraKeys();
    return keys == null || keys.isEmpty() ? null : namespaceIn(keys.get(0), stored.loraName());
  }

  /**
   * Whether {@code key}, in the first block's extra keys of a store that names {@code namespace},
   * is that namespace's salt: tagged, or, beside a top-level {@code cache_salt}, as it is.
   */
  public static boolean isSaltOf(Object key, String namespace, VllmEvent.BlockStored stored) {
    return namespace != null
        && (key.equals(TAG + namespace)
            || (namespace.equals(stored.cacheSalt()) && key.equals(namespace)));
  }

  /**
   * The namespace in one block's {@code extra_keys}, as Dynamo reads it: the first string key that
   * starts with the tag and has text after it, skipping the first key equal to {@code loraName} (so
   * a namespace spelled like the adapter still counts); null when there is none.
   */
  public static String namespaceIn(List<Object> blockKeys, String loraName) {
    if (blockKeys == null) {
      return null;
    }
    boolean loraSkipped = loraName == null || loraName.isEmpty();
    for (Object key : blockKeys) {
      if (!(key instanceof String text)) {
        continue;
      }
      if (!loraSkipped && text.equals(loraName)) {
        loraSkipped = true;
        continue;
      }
      if (text.startsWith(TAG) && text.length() > TAG.length()) {
        return text.substring(TAG.length());
      }
    }
    return null;
  }
}
