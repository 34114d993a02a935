package io.kvrouter.jinja;

import java.util.AbstractList;
import java.util.RandomAccess;

/**
 * A Python tuple: an immutable list that prints as {@code (a, b)} and never equals a list (or a
 * named tuple, {@link GroupTuple}).
 */
class PyTuple extends AbstractList<Object> implements RandomAccess {
  private final Object[] items;

  PyTuple(Object... items) {
    this.items = items;
  }

  @Override
  public Object get(int index) {
    return items[index];
  }

  @Override
  public int size() {
    return items.length;
  }
}
