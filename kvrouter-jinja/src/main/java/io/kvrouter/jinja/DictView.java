package io.kvrouter.jinja;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * What Python's {@code dict.keys()}, {@code values()} and {@code items()} return: iterable, with a
 * length, printed as {@code dict_keys(['a'])}, but neither subscriptable nor JSON-serializable, and
 * equal (as sets) only to a view of the same kind; values views equal nothing but themselves.
 */
final class DictView extends AbstractList<Object> implements RandomAccess {
  /** Python's type name: {@code dict_keys}, {@code dict_values} or {@code dict_items}. */
  final String kind;

  private final List<Object> items;

  DictView(String kind, List<Object> items) {
    this.kind = kind;
    this.items = items;
  }

  @Override
  public Object get(int index) {
    return items.get(index);
  }

  @Override
  public int size() {
    return items.size();
  }
}
