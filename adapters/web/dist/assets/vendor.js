/* Built by adapters/web/build.ts from adapters/web/src: edit the sources, then rebuild. */
/* eslint-disable */
// \0rolldown/runtime.js
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __commonJSMin = (cb, mod) => () => (
  mod || (cb((mod = { exports: {} }).exports, mod, mod.exports), (cb = null)),
  mod.exports
);
var __copyProps = (to, from, except, desc) => {
  if ((from && typeof from === 'object') || typeof from === 'function')
    for (var keys = __getOwnPropNames(from), i = 0, n = keys.length, key; i < n; i++) {
      key = keys[i];
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, {
          get: ((k) => from[k]).bind(null, key),
          enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable,
        });
    }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (
  (target = mod != null ? __create(__getProtoOf(mod)) : {}),
  __copyProps(
    isNodeMode || !mod || !mod.__esModule || !__hasOwnProp.call(mod, 'default')
      ? __defProp(target, 'default', {
          value: mod,
          enumerable: true,
        })
      : target,
    mod,
  )
);
// node_modules/preact/dist/preact.mjs
var n;
var t$1;
var u$2;
var i$1;
var f$2;
var o$2;
var e$1;
var l$1;
var c$2;
var a$2;
var h$1 = Symbol.for('pv');
var p$1 = {};
var y$2 = [];
var v$2 = /^m(i|n|o|s|text|space)$/;
var w$2 = Array.isArray;
var d$1 = y$2.slice;
var _$2 = Object.assign;
function g$2(n) {
  n && n.parentNode && n.remove();
}
function m$1(r, u, i, f, o) {
  var e = {
    type: r,
    props: u,
    key: i,
    ref: f,
    __k: null,
    __: null,
    __b: 0,
    __e: null,
    __c: null,
    constructor: h$1,
    __v: o || ++t$1,
    __i: -1,
    __u: 0,
  };
  return (!o && n.vnode && n.vnode(e), e);
}
function $(n) {
  return n.children;
}
function x$1(n, t) {
  ((this.props = n), (this.context = t), (this.__g = 0));
}
function S$1(n, t) {
  if (null == t) return n.__ && S$1(n.__, n.__i + 1);
  for (var r; t < n.__k.length; t++) if ((r = n.__k[t]) && r.__e) return r.__e;
  return 'function' != typeof n.type || n.props.__P ? null : S$1(n);
}
function C$2(t) {
  var r,
    u = t.__v,
    i = u.__e,
    f = [],
    o = [],
    e = t.__P;
  e &&
    (((r = _$2({ constructor: h$1 }, u)).__v = u.__v + 1),
    n.vnode && n.vnode(r),
    z$2(e, r, u, t.__n, e.namespaceURI, 32 & u.__u ? [i] : null, f, i || S$1(u), 32 & u.__u, o),
    (r.__v = u.__v),
    (r.__.__k[r.__i] = r),
    E$1(f, r, o),
    (u.__ = u.__e = null),
    r.__e != i && j(r));
}
function j(n) {
  if ((n = n.__) && n.__c && !n.props.__P)
    return (
      (n.__e = null),
      n.__k.some(function (t) {
        return t && (n.__e = t.__e);
      }),
      j(n)
    );
}
function L$1(t) {
  ((8 & t.__g || ((t.__g |= 8), u$2.push(t), f$2++)) && i$1 == n.debounceRendering) ||
    ((i$1 = n.debounceRendering) || queueMicrotask)(H);
}
function H() {
  try {
    for (var n, t = 1; u$2.length;)
      (u$2.length > t && u$2.sort(o$2), (n = u$2.shift()), (t = u$2.length), 8 & n.__g && C$2(n));
  } finally {
    (f$2 = u$2.length) && (i$1 || queueMicrotask)(H);
  }
}
function I$1(n, t, r, u, i, f, o, e, l, c, a) {
  var s,
    h,
    v,
    w,
    d,
    _,
    g = u.__k || y$2,
    k = t.length;
  for (l = q$1(r, t, g, l, k), s = 0; s < k; s++)
    null != (v = r.__k[s]) &&
      ((h = (~v.__i && g[v.__i]) || p$1),
      (v.__i = s),
      (_ = z$2(n, v, h, i, f, o, e, l, c, a)),
      (w = v.__e),
      (h.ref != v.ref || 8 & h.__u) &&
        (h.ref && G$2(h.ref, null, v, h), v.ref && a.push(v.ref, v.__c || w, v)),
      (d = d || w),
      4 & v.__u
        ? ((l = A$2(v, l, n, !h.__v)), h.__e && (h.__e = null))
        : 'function' == typeof v.type && void 0 !== _
          ? (l = _)
          : w && (l = w.nextSibling),
      (v.__u &= -21));
  return ((r.__e = d), l);
}
function q$1(n, t, r, u, i) {
  var f,
    o,
    e,
    l,
    c,
    a,
    s,
    p,
    y,
    v = r.length,
    d = v,
    _ = 0,
    g = 0,
    k = (n.__k = Array(i));
  for (f = 0; f < i; f++)
    null != (o = t[f]) && 'boolean' != typeof o && 'function' != typeof o
      ? ('object' != typeof o || o.constructor === String
          ? (o = k[f] = m$1(null, o))
          : w$2(o)
            ? (o = k[f] = m$1($, { children: o }))
            : o.constructor === h$1 && o.__b
              ? (o = k[f] = m$1(o.type, o.props, o.key, o.ref, o.__v))
              : (k[f] = o),
        (l = f + _),
        (o.__ = n),
        (o.__b = n.__b + 1),
        (e = null),
        ~(c = o.__i = P$1(o, r, l, d)) && (d--, (e = r[c]) && (e.__u |= 2)),
        e && e.__v
          ? ((o.__u |= 16), c == l - 1 ? _-- : c == l + 1 ? _++ : c != l && (c > l ? _-- : _++, (g = 1)))
          : (~c || (i > v ? _-- : i < v && _++), 'function' != typeof o.type && (o.__u |= 4)))
      : (k[f] = null);
  if (g) {
    for (a = [], s = [], f = 0; f < i; f++)
      if ((o = k[f]) && 16 & o.__u) {
        for (_ = 0, p = a.length; _ < p;) a[(y = (_ + p) >> 1)] < o.__i ? (_ = y + 1) : (p = y);
        ((a[_] = o.__i), (s[f] = _ + 1));
      }
    for (_ = a.length; f--;) s[f] && (s[f] == _ ? _-- : (k[f].__u |= 4));
  }
  if (d) for (f = 0; f < v; f++) !(e = r[f]) || 2 & e.__u || (e.__e == u && (u = S$1(e)), J$1(e, e));
  return u;
}
function A$2(n, t, r, u) {
  var i, f, o, e;
  if ('function' == typeof n.type) {
    if (n.props.__P) return t;
    if ((i = n.__k)) for (f = 0; f < i.length; f++) i[f] && ((i[f].__ = n), (t = A$2(i[f], t, r, !1)));
    return t;
  }
  for (
    t && !t.parentNode && (t = S$1(n)) && !t.parentNode && (t = null), o = n.__e, e = t;
    e && 8 == e.nodeType;
  )
    e = e.nextSibling;
  for (
    o != e && (!u && r.moveBefore && o.parentNode ? r.moveBefore(o, t) : r.insertBefore(o, t || null)), t = o;
    (t = t && t.nextSibling) && 8 == t.nodeType && !t.data.startsWith('$s');
  );
  return t;
}
function P$1(n, t, r, u) {
  var i,
    f = n.key,
    o = n.type,
    e = t[r],
    l = e && !(2 & e.__u);
  if ((null === e && null == f) || (l && f == e.key && o == e.type)) return r;
  if (u > (l ? 1 : 0)) {
    for (i = r - 1; i >= 0; i--) if ((e = t[i]) && !(2 & e.__u) && f == e.key && o == e.type) return i;
    for (i = r + 1; i < t.length; i++) if ((e = t[i]) && !(2 & e.__u) && f == e.key && o == e.type) return i;
  }
  return -1;
}
function T$1(n, t, r) {
  ((r ??= ''), '-' == t[0] ? n.setProperty(t, r) : (n[t] = r));
}
function N$1(n, t, r, u, i) {
  var f, o;
  if ('style' == t)
    if ('string' == typeof r) n.style.cssText = r;
    else {
      if (('string' == typeof u && (n.style.cssText = u = ''), u))
        for (t in u) (r && t in r) || T$1(n.style, t);
      if (r) for (t in r) (u && r[t] == u[t]) || T$1(n.style, t, r[t]);
    }
  else if ('o' == t[0] && 'n' == t[1])
    ('function' != typeof r && (r = null),
      'function' != typeof u && (u = null),
      ((n.__e || (n.__e = {}))[t] = r),
      (r && u) ||
        ((o = a$2[t] || (a$2[t] = V$1(t))),
        ((n.__a || (n.__a = {}))[t] = c$2),
        (f = t != (t = t.replace(l$1, '$1'))),
        (t = t.slice(2))[0] < 'a' && (t = t.toLowerCase()),
        r ? n.addEventListener(t, o, f) : n.removeEventListener(t, o, f)));
  else {
    if ('http://www.w3.org/2000/svg' == i) t = t.replace(/xlink(H|:h)/, 'h').replace(/sName$/, 's');
    else if (
      'width' != t &&
      'height' != t &&
      'href' != t &&
      'list' != t &&
      'form' != t &&
      'tabIndex' != t &&
      'download' != t &&
      'rowSpan' != t &&
      'colSpan' != t &&
      'role' != t &&
      'popover' != t &&
      t in n
    )
      try {
        n[t] = null == r ? '' : r;
        return;
      } catch (n) {}
    if ('function' == typeof r) return;
    null == r || (!1 === r && '-' != t[4])
      ? n.removeAttribute(t)
      : n.setAttribute(t, 'popover' == t && 1 == r ? '' : r);
  }
}
function V$1(t) {
  return function (r) {
    var u = this.__e;
    if (u) {
      if (((u = u[t]), null == r[e$1])) r[e$1] = c$2++;
      else if (r[e$1] < this.__a[t]) return;
      return u(n.event ? n.event(r) : r);
    }
  };
}
function z$2(t, r, u, i, f, o, e, l, c, a) {
  var s,
    p,
    v,
    d,
    k,
    b,
    m,
    M,
    C,
    j,
    L,
    H,
    q,
    A,
    O,
    P,
    T,
    N,
    V = r.type;
  if (r.constructor !== h$1) return null;
  (128 & u.__u &&
    ((c = 32 & u.__u), (s = u.__c.__z)) &&
    ((r.__u |= c), (p = o = []), 8 == s.nodeType ? (l = B$1(s, o)) : o.push(s), (l = o[0] || l)),
    (s = n.__b) && s(r));
  n: if ('function' == typeof V) {
    v = e.length;
    try {
      if (
        ((M = r.props),
        (C = (s = V.prototype) && s.render),
        (j = (s = V.contextType) && i[s.__c]),
        (L = s ? (j ? j.props.value : s.__) : i),
        (d = u.__c)
          ? ((r.__c = d), 2 & d.__g && (d.__g |= 1))
          : (C
              ? (r.__c = d = new V(M, L))
              : ((r.__c = d = new x$1(M, L)), (d.constructor = V), (d.render = K)),
            j && j.sub(d),
            d.state || (d.state = {}),
            (d.__n = i),
            (d.__g |= 8),
            (d.__h = []),
            (d.__k = [])),
        C &&
          (d.__s || (d.__s = d.state),
          V.getDerivedStateFromProps &&
            (d.__s == d.state && (d.__s = _$2({}, d.__s)), _$2(d.__s, V.getDerivedStateFromProps(M, d.__s)))),
        (k = d.props),
        (b = d.state),
        (d.__v = r),
        u.__c)
      ) {
        if (
          (M !== k &&
            C &&
            !V.getDerivedStateFromProps &&
            d.componentWillReceiveProps &&
            d.componentWillReceiveProps(M, L),
          (r.__v == u.__v && !(8 & d.__g)) ||
            (!(4 & d.__g) && d.shouldComponentUpdate && !1 === d.shouldComponentUpdate(M, d.__s, L)))
        ) {
          (r.__v != u.__v && ((d.props = M), (d.state = d.__s), (d.__g &= -9)),
            (r.__e = u.__e),
            (r.__k = u.__k),
            r.__k.some(function (n) {
              n && (n.__ = r);
            }),
            y$2.push.apply(d.__h, d.__k),
            (d.__k = []),
            d.__h.length && e.push(d),
            (l = S$1(u)));
          break n;
        }
        (d.componentWillUpdate && d.componentWillUpdate(M, d.__s, L),
          C &&
            d.componentDidUpdate &&
            d.__h.push(function () {
              d.componentDidUpdate(k, b, m);
            }));
      } else
        (C && !V.getDerivedStateFromProps && d.componentWillMount && d.componentWillMount(),
          C && d.componentDidMount && d.__h.push(d.componentDidMount));
      ((d.context = L), (d.props = M), (d.__P = t), (d.__g &= -5), (H = n.__r), (q = C ? 25 : 0));
      do ((d.__g &= -9), H && H(r), (s = d.render(d.props, (d.state = d.__s), d.context)));
      while (8 & d.__g && ++q < 25);
      (C && (y$2.push.apply(d.__h, d.__k), (d.__k = [])),
        (d.state = d.__s),
        d.getChildContext && (i = _$2({}, i, d.getChildContext())),
        C && u.__c && d.getSnapshotBeforeUpdate && (m = d.getSnapshotBeforeUpdate(k, b)),
        (A = s && s.type === $ && null == s.key ? s.props.children : s),
        M.__P &&
          ((s = l),
          (f = (t = M.__P).namespaceURI),
          (c = o = null),
          u.props &&
            u.props.__P != t &&
            (u.__k.some(function (n) {
              n && J$1(n, n);
            }),
            (u.__k = null)),
          (l = u.__k ? S$1(u, 0) : null)),
        (l = I$1(t, w$2(A) ? A : [A], r, u, i, f, o, e, l, c, a)),
        M.__P && ((r.__e = null), (l = s)),
        (r.__u &= -161),
        p && p.some(g$2),
        d.__h.length && e.push(d),
        1 & d.__g && (d.__g &= -4));
    } catch (t) {
      if (((e.length = v), (r.__v = null), c || o))
        if (t && t.then) {
          if (((r.__u |= 128 | c), o)) {
            for (~(T = o.indexOf(l || void 0)) || (T = o.length); (N = o[T - 1]) && 8 == N.nodeType;) T--;
            for (; T < o.length; T++)
              if ((N = o[T]))
                if (((o[T] = null), O)) {
                  if (N == P) break;
                } else {
                  if (8 != N.nodeType) break;
                  N.data.startsWith('$s') && (P = B$1((O = N)));
                }
          }
          if (!O) {
            for (; l && 8 == l.nodeType && l.nextSibling;) l = l.nextSibling;
            O = l;
          }
          ((s = B$1((O = r.__c.__z || (r.__c.__z = O)))) ? ((r.__e = O), (l = s)) : (r.__e = l),
            (l = l && l.nextSibling));
        } else o && o.some(g$2);
      else r.__e = u.__e;
      (r.__k || (r.__k = u.__k || []), (t && t.then) || D$2(r), n.__e(t, r, u));
    }
  } else l = r.__e = F$2(u.__e, r, u, i, f, o, e, c, a, t);
  return ((s = n.diffed) && s(r), l);
}
function B$1(n, t) {
  if (n && 8 == n.nodeType && n.data.startsWith('$s'))
    for (var r = 1; (n = n.nextSibling);) {
      if (8 == n.nodeType) {
        if (n.data.startsWith('$s')) r++;
        else if (n.data.startsWith('/$s') && !--r) return n;
      }
      t && t.push(n);
    }
}
function D$2(n) {
  n && (n.__c && (n.__c.__g |= 4), n.__k && n.__k.some(D$2));
}
function E$1(t, r, u) {
  for (var i = 0; i < u.length;) G$2(u[i++], u[i++], u[i++]);
  (n.__c && n.__c(r, t),
    t.some(function (r) {
      try {
        ((t = r.__h),
          (r.__h = []),
          t.some(function (n) {
            n.call(r);
          }));
      } catch (t) {
        n.__e(t, r.__v);
      }
    }));
}
function F$2(t, r, u, i, f, o, e, l, c, a) {
  var s,
    h,
    y,
    _,
    k,
    b,
    m,
    M,
    $ = u.props || p$1,
    x = r.props,
    C = r.type;
  if (
    ('svg' == C
      ? (f = 'http://www.w3.org/2000/svg')
      : 'math' == C
        ? (f = 'http://www.w3.org/1998/Math/MathML')
        : f || (f = 'http://www.w3.org/1999/xhtml'),
    o)
  ) {
    for (s = 0; s < o.length; s++)
      if ((k = o[s]) && (C ? k.localName == C : 3 == k.nodeType)) {
        ((t = k), (o[s] = null));
        break;
      }
  }
  if (!t) {
    if (((M = a.ownerDocument || document), !C)) return M.createTextNode(x);
    ((t = M.createElementNS(f, C, x.is ? x : a)), l && (n.__m && n.__m(r, o), (l = !1)), (o = null));
  }
  if (C) {
    if (
      ((a = ('template' == C && t.content) || t),
      (o = 'textarea' == C && null != x.defaultValue ? null : o && d$1.call(a.childNodes)),
      !l && o)
    )
      for ($ = {}, s = 0; s < t.attributes.length; s++) $[(k = t.attributes[s]).name] = k.value;
    for (s in $)
      ((k = $[s]),
        'dangerouslySetInnerHTML' == s
          ? (y = k)
          : 'children' == s ||
            s in x ||
            ('value' == s && 'defaultValue' in x) ||
            ('checked' == s && 'defaultChecked' in x) ||
            N$1(t, s, null, k, f));
    for (s in x)
      ((k = x[s]),
        'children' == s
          ? (_ = k)
          : 'dangerouslySetInnerHTML' == s
            ? (h = k)
            : 'value' == s
              ? (b = k)
              : 'checked' == s
                ? (m = k)
                : (l && 'function' != typeof k) || $[s] === k || N$1(t, s, k, $[s], f));
    (h
      ? (l || (y && (h.__html == y.__html || h.__html == t.innerHTML)) || (t.innerHTML = h.__html),
        (r.__k = []))
      : (y && (t.textContent = ''),
        ('foreignObject' == C || ('http://www.w3.org/1998/Math/MathML' == f && v$2.test(C))) &&
          (f = 'http://www.w3.org/1999/xhtml'),
        I$1(a, w$2(_) ? _ : [_], r, u, i, f, o, e, o ? o[0] : u.__k && S$1(u, 0), l, c),
        o && o.some(g$2)),
      (l && 'textarea' != C) ||
        ((s = 'value'),
        'progress' == C && null == b
          ? t.removeAttribute(s)
          : null == b || (b === t[s] && ('progress' != C || b)) || N$1(t, s, b, $[s], f),
        (s = 'checked'),
        null != m && m != t[s] && N$1(t, s, m, $[s], f)));
  } else $ === x || (l && t.data == x) || (t.data = x);
  return t;
}
function G$2(t, r, u, i) {
  try {
    'function' == typeof t
      ? r
        ? (r.__x = t(r) || 1)
        : i && (i = i.__c || i.__e) && (r = i.__x) && ((i.__x = null), 'function' == typeof r ? r() : t(null))
      : (t.current = r);
  } catch (t) {
    n.__e(t, u);
  }
}
function J$1(t, r, u) {
  var i, f, o, e;
  if (
    (n.unmount && n.unmount(t),
    !(i = t.ref) || (i.current && i.current != t.__e) || G$2(i, null, r, t),
    (i = t.__c))
  ) {
    if (i.componentWillUnmount)
      try {
        i.componentWillUnmount();
      } catch (t) {
        n.__e(t, r);
      }
    i.__P = i.__n = null;
  }
  if ((i = t.__k))
    for (e = 0; e < i.length; e++) i[e] && J$1(i[e], r, 'function' != typeof t.type || (u && !t.props.__P));
  (!u && (i = t.__c) && (i = i.__z) && (f = B$1(i, (o = []))) && (i == t.__e && o.some(g$2), g$2(f), g$2(i)),
    u || g$2(t.__e),
    (t.__e = t.__c = t.__ = null));
}
function K(n, t, r) {
  return this.constructor(n, r);
}
function Q$1(t, r) {
  var u, i, f, o;
  (n.__ && n.__(t, r),
    9 == r.nodeType && (r = r.documentElement),
    (i = (u = t && 32 & t.__u) ? null : r.__k),
    (r.__k = m$1($, { children: [t] })),
    (f = []),
    (o = []),
    z$2(
      r,
      r.__k,
      i || p$1,
      p$1,
      r.namespaceURI,
      i ? null : r.firstChild ? d$1.call(r.childNodes) : null,
      f,
      i ? i.__e : r.firstChild,
      u,
      o,
    ),
    E$1(f, r.__k, o),
    (r.__k.props.children = null));
}
((n = {
  __e: function (n, t, r, u) {
    for (var i, o, e; (t = t.__);)
      if ((i = t.__c) && !(1 & i.__g)) {
        i.__g |= 4;
        try {
          if (
            ((e = (o = i.constructor) && o.getDerivedStateFromError) &&
              i.setState(o.getDerivedStateFromError(n)),
            i.componentDidCatch && (i.componentDidCatch(n, u || {}), (e = 1)),
            e && 8 & i.__g)
          )
            return void (i.__g |= 2);
        } catch (t) {
          n = t;
        }
      }
    throw ((f$2 = 0), n);
  },
}),
  (t$1 = 0),
  (x$1.prototype.setState = function (n, t) {
    var r = this.__s;
    ((r && r != this.state) || (r = this.__s = _$2({}, this.state)),
      'function' == typeof n && (n = n(_$2({}, r), this.props)),
      n && (_$2(r, n), this.__v && (t && this.__k.push(t), L$1(this))));
  }),
  (x$1.prototype.forceUpdate = function (n) {
    this.__v && ((this.__g |= 4), n && this.__h.push(n), L$1(this));
  }),
  (x$1.prototype.render = $),
  (u$2 = []),
  (f$2 = 0),
  (o$2 = function (n, t) {
    return n.__v.__b - t.__v.__b;
  }),
  (e$1 = Symbol()),
  (l$1 = /(PointerCapture)$|Capture$/i),
  (c$2 = 0),
  (a$2 = {}));
// node_modules/preact/hooks/dist/hooks.mjs
var t;
var r;
var u$1;
var i;
var o$1 = Object.is;
var f$1 = 0;
var c$1 = [];
var e = [];
var a$1 = n;
var v$1 = a$1.__b;
var l = a$1.__r;
var m = a$1.diffed;
var h = a$1.__c;
var s = a$1.unmount;
var p = a$1.__;
function y$1(n, t) {
  (a$1.__h && a$1.__h(r, n, f$1 || t), (f$1 = 0));
  var u =
    r.__H ||
    (r.__H = {
      __: [],
      __h: [],
    });
  return (n >= u.__.length && u.__.push({}), u.__[n]);
}
function d(n) {
  return ((f$1 = 1), _$1(G$1, n));
}
function _$1(n, u, i) {
  var f = y$1(t++, 2);
  if (
    ((f.t = n),
    !f.__c &&
      ((f.__ = [
        i ? i(u) : G$1(void 0, u),
        function (n) {
          var t = (f.__N || f.__)[0],
            r = f.t(t, n);
          o$1(t, r) || ((f.__N = [r, f.__[1]]), f.__c.setState({}));
        },
      ]),
      (f.__c = r),
      !r.__f))
  ) {
    r.__f = !0;
    var c = r.shouldComponentUpdate;
    r.shouldComponentUpdate = function (n, t, r) {
      var u = this.__H;
      if (!u) return !0;
      var i = !1,
        f = this.props != n;
      if (
        (u.__.some(function (n) {
          n.__N && ((i = !0), o$1(n.__[0], n.__N[0]) || (f = !0));
        }),
        c)
      ) {
        var e = c.call(this, n, t, r);
        return i ? e || f : e;
      }
      return !i || f;
    };
  }
  return f.__;
}
function A$1(n, u) {
  var i = y$1(t++, 3);
  !a$1.__s && E(i.__H, u) && ((i.__P = !0), (i.__ = n), (i.u = u), r.__H.__h.push(i));
}
function F$1(n, u) {
  var i = y$1(t++, 4);
  !a$1.__s && E(i.__H, u) && ((i.__P = !1), (i.__ = n), (i.u = u), r.__h.push(i));
}
function T(n) {
  return (
    (f$1 = 5),
    w$1(function () {
      return { current: n };
    }, [])
  );
}
function w$1(n, r) {
  var u = y$1(t++, 7);
  return (E(u.__H, r) && ((u.__ = n()), (u.__H = r)), u.__);
}
function b(n, t) {
  return (
    (f$1 = 8),
    w$1(function () {
      return n;
    }, t)
  );
}
function g$1() {
  var n;
  do {
    for (; (n = e.shift());)
      try {
        C$1(n);
      } catch (t) {
        a$1.__e(t, { __: (n = n.__P) && n.__v });
      }
    for (; (n = c$1.shift());) {
      var t = n.__H;
      if (n.__P && t)
        try {
          (t.__h.some(C$1), t.__h.some(D$1), (t.__h = []));
        } catch (r) {
          ((t.__h = []), a$1.__e(r, n.__v));
        }
    }
  } while (e.length);
}
((a$1.__b = function (n) {
  ((r = null), v$1 && v$1(n));
}),
  (a$1.__ = function (n, t) {
    (n && t.__k && t.__k.__m && (n.__m = t.__k.__m), p && p(n, t));
  }),
  (a$1.__r = function (n) {
    (l && l(n), (t = 0));
    var i = (r = n.__c).__H;
    (i &&
      (u$1 == r ? (r.__h = []) : (i.__h.some(C$1), i.__h.some(D$1), (t = 0)),
      (i.__h = []),
      i.__.some(function (n) {
        (n.__N && (n.__ = n.__N), (n.u = n.__N = void 0));
      })),
      (u$1 = r));
  }),
  (a$1.diffed = function (n) {
    m && m(n);
    var t = n.__c;
    (t &&
      t.__H &&
      (t.__H.__h.length && B(c$1.push(t)),
      t.__H.__.some(function (n) {
        n.u && (n.__H = n.u);
      })),
      (u$1 = r = null));
  }),
  (a$1.__c = function (n, t) {
    (t.some(function (n) {
      try {
        (n.__h.some(C$1),
          (n.__h = n.__h.filter(function (n) {
            return !n.__ || D$1(n);
          })));
      } catch (t) {
        n.__h = [
          function () {
            throw t;
          },
        ];
      }
    }),
      h && h(n, t));
  }),
  (a$1.unmount = function (n) {
    s && s(n);
    var t,
      r,
      u = n.__c;
    u &&
      u.__H &&
      (u.__H.__.some(function (u) {
        try {
          if (u.__P && u.__c) {
            if (void 0 === r) {
              for (r = n.__; r && (!r.__c || !r.__c.__P);) r = r.__;
              r = r && r.__c;
            }
            ((u.__P = r), B(e.push(u)));
          } else C$1(u);
        } catch (n) {
          t = n;
        }
      }),
      (u.__H = void 0),
      t && a$1.__e(t, u.__v));
  }));
var k = 'function' == typeof requestAnimationFrame;
function z$1(n) {
  var t,
    r = function () {
      (clearTimeout(u), k && cancelAnimationFrame(t), setTimeout(n));
    },
    u = setTimeout(r, 35);
  k && (t = requestAnimationFrame(r));
}
function B(n) {
  (1 != n && i == a$1.requestAnimationFrame) || ((i = a$1.requestAnimationFrame) || z$1)(g$1);
}
function C$1(n) {
  var t = r,
    u = n.__c;
  ('function' == typeof u && ((n.__c = void 0), u()), (r = t));
}
function D$1(n) {
  var t = r;
  ((n.__c = n.__()), (r = t));
}
function E(n, t) {
  return (
    !n ||
    n.length != t.length ||
    t.some(function (t, r) {
      return !o$1(t, n[r]);
    })
  );
}
function G$1(n, t) {
  return 'function' == typeof t ? t(n) : t;
}
// node_modules/dompurify/dist/purify.es.mjs
/*! @license DOMPurify 3.4.18 | (c) Cure53 and other contributors | Released under the Apache license 2.0 and Mozilla Public License 2.0 | github.com/cure53/DOMPurify/blob/3.4.18/LICENSE */
function _OverloadYield(e, d) {
  ((this.v = e), (this.k = d));
}
function _arrayLikeToArray(r, a) {
  (null == a || a > r.length) && (a = r.length);
  for (var e = 0, n = Array(a); e < a; e++) n[e] = r[e];
  return n;
}
function _arrayWithHoles(r) {
  if (Array.isArray(r)) return r;
}
function _iterableToArrayLimit(r, l) {
  var t = null == r ? null : ('undefined' != typeof Symbol && r[Symbol.iterator]) || r['@@iterator'];
  if (null != t) {
    var e,
      n,
      i,
      u,
      a = [],
      f = !0,
      o = !1;
    try {
      if (((i = (t = t.call(r)).next), 0 === l)) {
        if (Object(t) !== t) return;
        f = !1;
      } else for (; !(f = (e = i.call(t)).done) && (a.push(e.value), a.length !== l); f = !0);
    } catch (r) {
      ((o = !0), (n = r));
    } finally {
      try {
        if (!f && null != t.return && ((u = t.return()), Object(u) !== u)) return;
      } finally {
        if (o) throw n;
      }
    }
    return a;
  }
}
function _nonIterableRest() {
  throw new TypeError(
    'Invalid attempt to destructure non-iterable instance.\nIn order to be iterable, non-array objects must have a [Symbol.iterator]() method.',
  );
}
/*! regenerator-runtime -- Copyright (c) 2014-present, Facebook, Inc. -- license (MIT): https://github.com/babel/babel/blob/main/packages/babel-helpers/LICENSE */
function _slicedToArray(r, e) {
  return (
    _arrayWithHoles(r) ||
    _iterableToArrayLimit(r, e) ||
    _unsupportedIterableToArray(r, e) ||
    _nonIterableRest()
  );
}
function _unsupportedIterableToArray(r, a) {
  if (r) {
    if ('string' == typeof r) return _arrayLikeToArray(r, a);
    var t = {}.toString.call(r).slice(8, -1);
    return (
      'Object' === t && r.constructor && (t = r.constructor.name),
      'Map' === t || 'Set' === t
        ? Array.from(r)
        : 'Arguments' === t || /^(?:Ui|I)nt(?:8|16|32)(?:Clamped)?Array$/.test(t)
          ? _arrayLikeToArray(r, a)
          : void 0
    );
  }
}
function AsyncGenerator(e) {
  var t, n;
  function resume(t, n) {
    try {
      var r = e[t](n),
        o = r.value,
        u = o instanceof _OverloadYield;
      Promise.resolve(u ? o.v : o).then(
        function (n) {
          if (u) {
            var i = 'return' === t && o.k ? t : 'next';
            if (!o.k || n.done) return resume(i, n);
            n = e[i](n).value;
          }
          settle(!!r.done, n);
        },
        function (e) {
          resume('throw', e);
        },
      );
    } catch (e) {
      settle(2, e);
    }
  }
  function settle(e, r) {
    (2 === e
      ? t.reject(r)
      : t.resolve({
          value: r,
          done: e,
        }),
      (t = t.next) ? resume(t.key, t.arg) : (n = null));
  }
  ((this._invoke = function (e, r) {
    return new Promise(function (o, u) {
      var i = {
        key: e,
        arg: r,
        resolve: o,
        reject: u,
        next: null,
      };
      n ? (n = n.next = i) : ((t = n = i), resume(e, r));
    });
  }),
    'function' != typeof e.return && (this.return = void 0));
}
((AsyncGenerator.prototype[('function' == typeof Symbol && Symbol.asyncIterator) || '@@asyncIterator'] =
  function () {
    return this;
  }),
  (AsyncGenerator.prototype.next = function (e) {
    return this._invoke('next', e);
  }),
  (AsyncGenerator.prototype.throw = function (e) {
    return this._invoke('throw', e);
  }),
  (AsyncGenerator.prototype.return = function (e) {
    return this._invoke('return', e);
  }));
var entries = Object.entries;
var objectKeys = Object.keys;
var setPrototypeOf = Object.setPrototypeOf;
var isFrozen = Object.isFrozen;
var getPrototypeOf = Object.getPrototypeOf;
var getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
var freeze = Object.freeze;
var seal = Object.seal;
var create = Object.create;
var _ref = typeof Reflect !== 'undefined' && Reflect;
var apply = _ref.apply;
var construct = _ref.construct;
if (!freeze)
  freeze = function freeze(x) {
    return x;
  };
if (!seal)
  seal = function seal(x) {
    return x;
  };
if (!apply)
  apply = function apply(func, thisArg) {
    for (
      var _len = arguments.length, args = new Array(_len > 2 ? _len - 2 : 0), _key = 2;
      _key < _len;
      _key++
    )
      args[_key - 2] = arguments[_key];
    return func.apply(thisArg, args);
  };
if (!construct)
  construct = function construct(Func) {
    for (
      var _len2 = arguments.length, args = new Array(_len2 > 1 ? _len2 - 1 : 0), _key2 = 1;
      _key2 < _len2;
      _key2++
    )
      args[_key2 - 1] = arguments[_key2];
    return new Func(...args);
  };
var arrayForEach = unapply(Array.prototype.forEach);
var arrayLastIndexOf = unapply(Array.prototype.lastIndexOf);
var arrayPop = unapply(Array.prototype.pop);
var arrayPush = unapply(Array.prototype.push);
var arraySlice = unapply(Array.prototype.slice);
var arraySplice = unapply(Array.prototype.splice);
var arrayIsArray = Array.isArray;
var setCreate = unconstruct(Set);
var setAdd = unapply(Set.prototype.add);
var setHas = unapply(Set.prototype.has);
var stringToLowerCase = unapply(String.prototype.toLowerCase);
var stringToString = unapply(String.prototype.toString);
var stringMatch = unapply(String.prototype.match);
var stringReplace = unapply(String.prototype.replace);
var stringIndexOf = unapply(String.prototype.indexOf);
var stringTrim = unapply(String.prototype.trim);
var numberToString = unapply(Number.prototype.toString);
var booleanToString = unapply(Boolean.prototype.toString);
var bigintToString = typeof BigInt === 'undefined' ? null : unapply(BigInt.prototype.toString);
var symbolToString = typeof Symbol === 'undefined' ? null : unapply(Symbol.prototype.toString);
var objectHasOwnProperty = unapply(Object.prototype.hasOwnProperty);
var objectToString = unapply(Object.prototype.toString);
var regExpTestRaw = RegExp.prototype.test;
var regExpTest = function regExpTest(regExp, value) {
  if (regExp instanceof RegExp) regExp.lastIndex = 0;
  return apply(regExpTestRaw, regExp, [value]);
};
var typeErrorCreate = unconstruct(TypeError);
/**
 * Creates a new function that calls the given function with a specified thisArg and arguments.
 *
 * @param func - The function to be wrapped and called.
 * @returns A new function that calls the given function with a specified thisArg and arguments.
 */
function unapply(func) {
  return function (thisArg) {
    for (
      var _len3 = arguments.length, args = new Array(_len3 > 1 ? _len3 - 1 : 0), _key3 = 1;
      _key3 < _len3;
      _key3++
    )
      args[_key3 - 1] = arguments[_key3];
    return apply(func, thisArg, args);
  };
}
/**
 * Creates a new function that constructs an instance of the given constructor function with the provided arguments.
 *
 * @param func - The constructor function to be wrapped and called.
 * @returns A new function that constructs an instance of the given constructor function with the provided arguments.
 */
function unconstruct(Func) {
  return function () {
    for (var _len4 = arguments.length, args = new Array(_len4), _key4 = 0; _key4 < _len4; _key4++)
      args[_key4] = arguments[_key4];
    return construct(Func, args);
  };
}
/**
 * Add properties to a lookup table
 *
 * @param set - The set to which elements will be added.
 * @param array - The array containing elements to be added to the set.
 * @param transformCaseFunc - An optional function to transform the case of each element before adding to the set.
 * @returns The modified set with added elements.
 */
function addToSet(set, array) {
  let transformCaseFunc = arguments.length > 2 && arguments[2] !== void 0 ? arguments[2] : stringToLowerCase;
  if (setPrototypeOf) setPrototypeOf(set, null);
  if (!arrayIsArray(array)) return set;
  let l = array.length;
  while (l--) {
    let element = array[l];
    if (typeof element === 'string') {
      const lcElement = transformCaseFunc(element);
      if (lcElement !== element) {
        if (!isFrozen(array)) array[l] = lcElement;
        element = lcElement;
      }
    }
    set[element] = true;
  }
  return set;
}
/**
 * Clean up an array to harden against CSPP
 *
 * @param array - The array to be cleaned.
 * @returns The cleaned version of the array
 */
function cleanArray(array) {
  for (let index = 0; index < array.length; index++)
    if (!objectHasOwnProperty(array, index)) array[index] = null;
  return array;
}
/**
 * Shallow clone an object
 *
 * @param object - The object to be cloned.
 * @returns A new object that copies the original.
 */
function clone(object) {
  const newObject = create(null);
  for (const _ref2 of entries(object)) {
    var _ref3 = _slicedToArray(_ref2, 2);
    const property = _ref3[0];
    const value = _ref3[1];
    if (objectHasOwnProperty(object, property)) {
      if (arrayIsArray(value)) newObject[property] = cleanArray(value);
      else if (value && typeof value === 'object' && value.constructor === Object)
        newObject[property] = clone(value);
      else newObject[property] = value;
    }
  }
  return newObject;
}
/**
 * Copy a flat lookup table
 *
 * @param set - The set to copy.
 * @returns A new prototype-free set with the same entries.
 */
function cloneSet(set) {
  const newSet = create(null);
  const keys = objectKeys(set);
  let l = keys.length;
  while (l--) newSet[keys[l]] = set[keys[l]];
  return newSet;
}
/**
 * Convert non-node values into strings without depending on direct property access.
 *
 * @param value - The value to stringify.
 * @returns A string representation of the provided value.
 */
function stringifyValue(value) {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return numberToString(value);
    case 'boolean':
      return booleanToString(value);
    case 'bigint':
      return bigintToString ? bigintToString(value) : '0';
    case 'symbol':
      return symbolToString ? symbolToString(value) : 'Symbol()';
    case 'undefined':
      return objectToString(value);
    case 'function':
    case 'object': {
      if (value === null) return objectToString(value);
      const valueAsRecord = value;
      const valueToString = lookupGetter(valueAsRecord, 'toString');
      if (typeof valueToString === 'function') {
        const stringified = valueToString(valueAsRecord);
        return typeof stringified === 'string' ? stringified : objectToString(stringified);
      }
      return objectToString(value);
    }
    default:
      return objectToString(value);
  }
}
/**
 * This method automatically checks if the prop is function or getter and behaves accordingly.
 *
 * @param object - The object to look up the getter function in its prototype chain.
 * @param prop - The property name for which to find the getter function.
 * @returns The getter function found in the prototype chain or a fallback function.
 */
function lookupGetter(object, prop) {
  while (object !== null) {
    const desc = getOwnPropertyDescriptor(object, prop);
    if (desc) {
      if (desc.get) return unapply(desc.get);
      if (typeof desc.value === 'function') return unapply(desc.value);
    }
    object = getPrototypeOf(object);
  }
  function fallbackValue() {
    return null;
  }
  return fallbackValue;
}
/**
 * Like lookupGetter, but for accessor properties only, and returns null
 * instead of a null-returning fallback when no getter exists on the chain.
 * Lets a caller fall back to a direct property read in environments that
 * lack the getter, where a fallback returning null would be indistinguishable
 * from a legitimate null value (e.g. namespaceURI of a no-namespace element).
 *
 * @param object - The object (usually a prototype) to start the lookup at.
 * @param prop - The accessor property name.
 * @returns The unapplied getter, or null if none was found.
 */
function lookupAccessor(object, prop) {
  while (object !== null) {
    const desc = getOwnPropertyDescriptor(object, prop);
    if (desc) return desc.get ? unapply(desc.get) : null;
    object = getPrototypeOf(object);
  }
  return null;
}
function isRegex(value) {
  if (!value) return false;
  try {
    regExpTest(value, '');
    return true;
  } catch (_unused) {
    return false;
  }
}
var html$1 = freeze([
  'a',
  'abbr',
  'acronym',
  'address',
  'area',
  'article',
  'aside',
  'audio',
  'b',
  'bdi',
  'bdo',
  'big',
  'blink',
  'blockquote',
  'body',
  'br',
  'button',
  'canvas',
  'caption',
  'center',
  'cite',
  'code',
  'col',
  'colgroup',
  'content',
  'data',
  'datalist',
  'dd',
  'decorator',
  'del',
  'details',
  'dfn',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'element',
  'em',
  'fieldset',
  'figcaption',
  'figure',
  'font',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'head',
  'header',
  'hgroup',
  'hr',
  'html',
  'i',
  'img',
  'input',
  'ins',
  'kbd',
  'label',
  'legend',
  'li',
  'main',
  'map',
  'mark',
  'marquee',
  'menu',
  'menuitem',
  'meter',
  'nav',
  'nobr',
  'ol',
  'optgroup',
  'option',
  'output',
  'p',
  'picture',
  'pre',
  'progress',
  'q',
  'rp',
  'rt',
  'ruby',
  's',
  'samp',
  'search',
  'section',
  'select',
  'shadow',
  'slot',
  'small',
  'source',
  'spacer',
  'span',
  'strike',
  'strong',
  'style',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'template',
  'textarea',
  'tfoot',
  'th',
  'thead',
  'time',
  'tr',
  'track',
  'tt',
  'u',
  'ul',
  'var',
  'video',
  'wbr',
]);
var svg$1 = freeze([
  'svg',
  'a',
  'altglyph',
  'altglyphdef',
  'altglyphitem',
  'animatecolor',
  'animatemotion',
  'animatetransform',
  'circle',
  'clippath',
  'defs',
  'desc',
  'ellipse',
  'filter',
  'font',
  'g',
  'glyph',
  'glyphref',
  'hkern',
  'image',
  'line',
  'lineargradient',
  'marker',
  'mask',
  'metadata',
  'mpath',
  'path',
  'pattern',
  'polygon',
  'polyline',
  'radialgradient',
  'rect',
  'stop',
  'style',
  'switch',
  'symbol',
  'text',
  'textpath',
  'title',
  'tref',
  'tspan',
  'view',
  'vkern',
]);
var svgFilters = freeze([
  'feBlend',
  'feColorMatrix',
  'feComponentTransfer',
  'feComposite',
  'feConvolveMatrix',
  'feDiffuseLighting',
  'feDisplacementMap',
  'feDistantLight',
  'feDropShadow',
  'feFlood',
  'feFuncA',
  'feFuncB',
  'feFuncG',
  'feFuncR',
  'feGaussianBlur',
  'feImage',
  'feMerge',
  'feMergeNode',
  'feMorphology',
  'feOffset',
  'fePointLight',
  'feSpecularLighting',
  'feSpotLight',
  'feTile',
  'feTurbulence',
]);
var svgDisallowed = freeze([
  'animate',
  'color-profile',
  'cursor',
  'discard',
  'font-face',
  'font-face-format',
  'font-face-name',
  'font-face-src',
  'font-face-uri',
  'foreignobject',
  'hatch',
  'hatchpath',
  'mesh',
  'meshgradient',
  'meshpatch',
  'meshrow',
  'missing-glyph',
  'script',
  'set',
  'solidcolor',
  'unknown',
  'use',
]);
var mathMl$1 = freeze([
  'math',
  'menclose',
  'merror',
  'mfenced',
  'mfrac',
  'mglyph',
  'mi',
  'mlabeledtr',
  'mmultiscripts',
  'mn',
  'mo',
  'mover',
  'mpadded',
  'mphantom',
  'mroot',
  'mrow',
  'ms',
  'mspace',
  'msqrt',
  'mstyle',
  'msub',
  'msup',
  'msubsup',
  'mtable',
  'mtd',
  'mtext',
  'mtr',
  'munder',
  'munderover',
  'mprescripts',
]);
var mathMlDisallowed = freeze([
  'maction',
  'maligngroup',
  'malignmark',
  'mlongdiv',
  'mscarries',
  'mscarry',
  'msgroup',
  'mstack',
  'msline',
  'msrow',
  'semantics',
  'annotation',
  'annotation-xml',
  'mprescripts',
  'none',
]);
var text = freeze(['#text']);
var html = freeze([
  'accept',
  'action',
  'align',
  'alt',
  'autocapitalize',
  'autocomplete',
  'autopictureinpicture',
  'autoplay',
  'background',
  'bgcolor',
  'border',
  'capture',
  'cellpadding',
  'cellspacing',
  'checked',
  'cite',
  'class',
  'clear',
  'color',
  'cols',
  'colspan',
  'command',
  'commandfor',
  'controls',
  'controlslist',
  'coords',
  'crossorigin',
  'datetime',
  'decoding',
  'default',
  'dir',
  'disabled',
  'disablepictureinpicture',
  'disableremoteplayback',
  'download',
  'draggable',
  'enctype',
  'enterkeyhint',
  'exportparts',
  'face',
  'for',
  'headers',
  'height',
  'hidden',
  'high',
  'href',
  'hreflang',
  'id',
  'inert',
  'inputmode',
  'integrity',
  'ismap',
  'kind',
  'label',
  'lang',
  'list',
  'loading',
  'loop',
  'low',
  'max',
  'maxlength',
  'media',
  'method',
  'min',
  'minlength',
  'multiple',
  'muted',
  'name',
  'nonce',
  'noshade',
  'novalidate',
  'nowrap',
  'open',
  'optimum',
  'part',
  'pattern',
  'placeholder',
  'playsinline',
  'popover',
  'popovertarget',
  'popovertargetaction',
  'poster',
  'preload',
  'pubdate',
  'radiogroup',
  'readonly',
  'rel',
  'required',
  'rev',
  'reversed',
  'role',
  'rows',
  'rowspan',
  'spellcheck',
  'scope',
  'selected',
  'shape',
  'size',
  'sizes',
  'slot',
  'span',
  'srclang',
  'start',
  'src',
  'srcset',
  'step',
  'style',
  'summary',
  'tabindex',
  'title',
  'translate',
  'type',
  'usemap',
  'valign',
  'value',
  'width',
  'wrap',
  'xmlns',
]);
var svg = freeze([
  'accent-height',
  'accumulate',
  'additive',
  'alignment-baseline',
  'amplitude',
  'ascent',
  'attributename',
  'attributetype',
  'azimuth',
  'basefrequency',
  'baseline-shift',
  'begin',
  'bias',
  'by',
  'class',
  'clip',
  'clippathunits',
  'clip-path',
  'clip-rule',
  'color',
  'color-interpolation',
  'color-interpolation-filters',
  'color-profile',
  'color-rendering',
  'cx',
  'cy',
  'd',
  'dx',
  'dy',
  'diffuseconstant',
  'direction',
  'display',
  'divisor',
  'dominant-baseline',
  'dur',
  'edgemode',
  'elevation',
  'end',
  'exponent',
  'fill',
  'fill-opacity',
  'fill-rule',
  'filter',
  'filterunits',
  'flood-color',
  'flood-opacity',
  'font-family',
  'font-size',
  'font-size-adjust',
  'font-stretch',
  'font-style',
  'font-variant',
  'font-weight',
  'fx',
  'fy',
  'g1',
  'g2',
  'glyph-name',
  'glyphref',
  'gradientunits',
  'gradienttransform',
  'height',
  'href',
  'id',
  'image-rendering',
  'in',
  'in2',
  'intercept',
  'k',
  'k1',
  'k2',
  'k3',
  'k4',
  'kerning',
  'keypoints',
  'keysplines',
  'keytimes',
  'lang',
  'lengthadjust',
  'letter-spacing',
  'kernelmatrix',
  'kernelunitlength',
  'lighting-color',
  'local',
  'marker-end',
  'marker-mid',
  'marker-start',
  'markerheight',
  'markerunits',
  'markerwidth',
  'maskcontentunits',
  'maskunits',
  'max',
  'mask',
  'mask-type',
  'media',
  'method',
  'mode',
  'min',
  'name',
  'numoctaves',
  'offset',
  'operator',
  'opacity',
  'order',
  'orient',
  'orientation',
  'origin',
  'overflow',
  'paint-order',
  'path',
  'pathlength',
  'patterncontentunits',
  'patterntransform',
  'patternunits',
  'pointer-events',
  'points',
  'preservealpha',
  'preserveaspectratio',
  'primitiveunits',
  'r',
  'rx',
  'ry',
  'radius',
  'refx',
  'refy',
  'repeatcount',
  'repeatdur',
  'restart',
  'result',
  'rotate',
  'scale',
  'seed',
  'shape-rendering',
  'slope',
  'specularconstant',
  'specularexponent',
  'spreadmethod',
  'startoffset',
  'stddeviation',
  'stitchtiles',
  'stop-color',
  'stop-opacity',
  'stroke-dasharray',
  'stroke-dashoffset',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-opacity',
  'stroke',
  'stroke-width',
  'style',
  'surfacescale',
  'systemlanguage',
  'tabindex',
  'tablevalues',
  'targetx',
  'targety',
  'transform',
  'transform-origin',
  'text-anchor',
  'text-decoration',
  'text-orientation',
  'text-rendering',
  'textlength',
  'type',
  'u1',
  'u2',
  'unicode',
  'values',
  'vector-effect',
  'viewbox',
  'visibility',
  'version',
  'vert-adv-y',
  'vert-origin-x',
  'vert-origin-y',
  'width',
  'word-spacing',
  'wrap',
  'writing-mode',
  'xchannelselector',
  'ychannelselector',
  'x',
  'x1',
  'x2',
  'xmlns',
  'y',
  'y1',
  'y2',
  'z',
  'zoomandpan',
]);
var mathMl = freeze([
  'accent',
  'accentunder',
  'align',
  'bevelled',
  'close',
  'columnalign',
  'columnlines',
  'columnspacing',
  'columnspan',
  'denomalign',
  'depth',
  'dir',
  'display',
  'displaystyle',
  'encoding',
  'fence',
  'frame',
  'height',
  'href',
  'id',
  'largeop',
  'length',
  'linethickness',
  'lquote',
  'lspace',
  'mathbackground',
  'mathcolor',
  'mathsize',
  'mathvariant',
  'maxsize',
  'minsize',
  'movablelimits',
  'notation',
  'numalign',
  'open',
  'rowalign',
  'rowlines',
  'rowspacing',
  'rowspan',
  'rspace',
  'rquote',
  'scriptlevel',
  'scriptminsize',
  'scriptsizemultiplier',
  'selection',
  'separator',
  'separators',
  'stretchy',
  'subscriptshift',
  'supscriptshift',
  'symmetric',
  'voffset',
  'width',
  'xmlns',
]);
var xml$1 = freeze(['xlink:href', 'xml:id', 'xlink:title', 'xml:space', 'xmlns:xlink']);
var MUSTACHE_EXPR = seal(/{{[\w\W]*|^[\w\W]*}}/g);
var ERB_EXPR = seal(/<%[\w\W]*|^[\w\W]*%>/g);
var TMPLIT_EXPR = seal(/\${[\w\W]*/g);
var TMPL_MARKER_SERIALIZED = seal(/{{|}}|\${|<%|%>|&lt;%|%&gt;/);
var DATA_ATTR = seal(/^data-[\-\w.\u00B7-\uFFFF]+$/);
var ARIA_ATTR = seal(/^aria-[\-\w]+$/);
var IS_ALLOWED_URI = seal(
  /^(?:(?:(?:f|ht)tps?|mailto|tel|callto|sms|cid|xmpp|matrix):|[^a-z]|[a-z+.\-]+(?:[^a-z+.\-:]|$))/i,
);
var IS_SCRIPT_OR_DATA = seal(/^(?:\w+script|data):/i);
var ATTR_WHITESPACE = seal(/[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u2029\u205F\u3000]/g);
var DOCTYPE_NAME = seal(/^html$/i);
var CUSTOM_ELEMENT = seal(/^[a-z][.\w]*(-[.\w]+)+$/i);
var ELEMENT_MARKUP_PROBE = seal(/<[/\w!]/g);
var COMMENT_MARKUP_PROBE = seal(/<[/\w]/g);
var FALLBACK_TAG_CLOSE = seal(/<\/no(script|embed|frames)/i);
var SELF_CLOSING_TAG = seal(/\/>/i);
var ATTR_VALUE_BREAKOUT = seal(
  /((--!?|])>)|<\/(style|script|title|xmp|textarea|noscript|iframe|noembed|noframes)/i,
);
var LEADING_WHITESPACE = seal(/^[\r\n\t ]+/);
var NODE_TYPE = {
  element: 1,
  text: 3,
  processingInstruction: 7,
  comment: 8,
  document: 9,
  documentFragment: 11,
};
var LITERAL_TEXT_ELEMENTS = freeze(
  addToSet({}, ['style', 'script', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext', 'noscript']),
);
var getGlobal = function getGlobal() {
  return typeof window === 'undefined' ? null : window;
};
/**
 * Creates a no-op policy for internal use only.
 * Don't export this function outside this module!
 * @param trustedTypes The policy factory.
 * @param purifyHostElement The Script element used to load DOMPurify (to determine policy name suffix).
 * @return The policy created (or null, if Trusted Types
 * are not supported or creating the policy failed).
 */
var _createTrustedTypesPolicy = function _createTrustedTypesPolicy(trustedTypes, purifyHostElement) {
  if (typeof trustedTypes !== 'object' || typeof trustedTypes.createPolicy !== 'function') return null;
  let suffix = null;
  const ATTR_NAME = 'data-tt-policy-suffix';
  if (purifyHostElement && purifyHostElement.hasAttribute(ATTR_NAME))
    suffix = purifyHostElement.getAttribute(ATTR_NAME);
  const policyName = 'dompurify' + (suffix ? '#' + suffix : '');
  try {
    return trustedTypes.createPolicy(policyName, {
      createHTML(html) {
        return html;
      },
      createScriptURL(scriptUrl) {
        return scriptUrl;
      },
    });
  } catch (_) {
    console.warn('TrustedTypes policy ' + policyName + ' could not be created.');
    return null;
  }
};
var _createHooksMap = function _createHooksMap() {
  return {
    afterSanitizeAttributes: [],
    afterSanitizeElements: [],
    afterSanitizeShadowDOM: [],
    beforeSanitizeAttributes: [],
    beforeSanitizeElements: [],
    beforeSanitizeShadowDOM: [],
    uponSanitizeAttribute: [],
    uponSanitizeElement: [],
    uponSanitizeShadowNode: [],
  };
};
/**
 * Resolve a set-valued configuration option.
 *
 * @param cfg the cloned, prototype-free configuration object
 * @param key the configuration property to read
 * @param fallback the set to use when the option is absent or not an array
 * @param options case transform, and an optional base set to extend a copy of
 * @returns a fresh set built from cfg[key], or the fallback
 */
var _resolveSetOption = function _resolveSetOption(cfg, key, fallback, options) {
  return objectHasOwnProperty(cfg, key) && arrayIsArray(cfg[key])
    ? addToSet(options.base ? cloneSet(options.base) : {}, cfg[key], options.transform)
    : fallback;
};
/**
 * Resolve an object-valued configuration option.
 *
 * @param cfg the cloned, prototype-free configuration object
 * @param key the configuration property to read
 * @param fallback the read-only value to use when the option is absent
 * @returns a prototype-free clone of cfg[key], or the fallback
 */
var _resolveObjectOption = function _resolveObjectOption(cfg, key, fallback) {
  const value = objectHasOwnProperty(cfg, key) ? cfg[key] : void 0;
  return value && typeof value === 'object' ? clone(value) : fallback;
};
function createDOMPurify() {
  let window = arguments.length > 0 && arguments[0] !== void 0 ? arguments[0] : getGlobal();
  const DOMPurify = (root) => createDOMPurify(root);
  DOMPurify.version = '3.4.18';
  DOMPurify.removed = [];
  if (!window || !window.document || window.document.nodeType !== NODE_TYPE.document || !window.Element) {
    DOMPurify.isSupported = false;
    return DOMPurify;
  }
  let document = window.document;
  const originalDocument = document;
  const currentScript = originalDocument.currentScript;
  const HTMLTemplateElement = window.HTMLTemplateElement,
    Node = window.Node,
    Element = window.Element,
    NodeFilter = window.NodeFilter,
    DOMParser = window.DOMParser,
    trustedTypes = window.trustedTypes;
  const ElementPrototype = Element.prototype;
  const cloneNode = lookupGetter(ElementPrototype, 'cloneNode');
  const remove = lookupGetter(ElementPrototype, 'remove');
  const removeAttributeNode = lookupGetter(ElementPrototype, 'removeAttributeNode');
  const getNextSibling = lookupGetter(ElementPrototype, 'nextSibling');
  const getChildNodes = lookupGetter(ElementPrototype, 'childNodes');
  const getParentNode = lookupGetter(ElementPrototype, 'parentNode');
  const getShadowRoot = lookupGetter(ElementPrototype, 'shadowRoot');
  const getAttributes = lookupGetter(ElementPrototype, 'attributes');
  const getNodeType = Node && Node.prototype ? lookupGetter(Node.prototype, 'nodeType') : null;
  const getNodeName = Node && Node.prototype ? lookupGetter(Node.prototype, 'nodeName') : null;
  const getOwnerDocument = Node && Node.prototype ? lookupGetter(Node.prototype, 'ownerDocument') : null;
  const _readNodeType = function _readNodeType(node) {
    return getNodeType ? getNodeType(node) : node.nodeType;
  };
  const _readNodeName = function _readNodeName(node) {
    return getNodeName ? getNodeName(node) : node.nodeName;
  };
  const getNamespaceURI = lookupAccessor(ElementPrototype, 'namespaceURI');
  const _readNamespaceURI = function _readNamespaceURI(element) {
    return getNamespaceURI ? getNamespaceURI(element) : element.namespaceURI;
  };
  if (typeof HTMLTemplateElement === 'function') {
    const template = document.createElement('template');
    if (template.content && template.content.ownerDocument) document = template.content.ownerDocument;
  }
  let trustedTypesPolicy;
  let emptyHTML = '';
  let defaultTrustedTypesPolicy;
  let defaultTrustedTypesPolicyResolved = false;
  let IN_TRUSTED_TYPES_POLICY = 0;
  const _assertNotInTrustedTypesPolicy = function _assertNotInTrustedTypesPolicy() {
    if (IN_TRUSTED_TYPES_POLICY > 0)
      throw typeErrorCreate(
        'A configured TRUSTED_TYPES_POLICY callback (createHTML or createScriptURL) must not call DOMPurify.sanitize, as that causes infinite recursion. Do not pass a policy whose callbacks wrap DOMPurify as TRUSTED_TYPES_POLICY; see the "DOMPurify and Trusted Types" section of the README.',
      );
  };
  const _createTrustedHTML = function _createTrustedHTML(html) {
    _assertNotInTrustedTypesPolicy();
    IN_TRUSTED_TYPES_POLICY++;
    try {
      return trustedTypesPolicy.createHTML(html);
    } finally {
      IN_TRUSTED_TYPES_POLICY--;
    }
  };
  const _signOutput = function _signOutput(html) {
    return trustedTypesPolicy && RETURN_TRUSTED_TYPE ? _createTrustedHTML(html) : html;
  };
  const _createTrustedScriptURL = function _createTrustedScriptURL(scriptUrl) {
    _assertNotInTrustedTypesPolicy();
    IN_TRUSTED_TYPES_POLICY++;
    try {
      return trustedTypesPolicy.createScriptURL(scriptUrl);
    } finally {
      IN_TRUSTED_TYPES_POLICY--;
    }
  };
  const _getDefaultTrustedTypesPolicy = function _getDefaultTrustedTypesPolicy() {
    if (!defaultTrustedTypesPolicyResolved) {
      defaultTrustedTypesPolicy = _createTrustedTypesPolicy(trustedTypes, currentScript);
      defaultTrustedTypesPolicyResolved = true;
    }
    return defaultTrustedTypesPolicy;
  };
  const _document = document,
    implementation = _document.implementation,
    createNodeIterator = _document.createNodeIterator,
    createDocumentFragment = _document.createDocumentFragment,
    getElementsByTagName = _document.getElementsByTagName;
  const importNode = originalDocument.importNode;
  let hooks = _createHooksMap();
  /**
   * Expose whether this browser supports running the full DOMPurify.
   */
  DOMPurify.isSupported =
    typeof entries === 'function' &&
    typeof getParentNode === 'function' &&
    implementation &&
    implementation.createHTMLDocument !== void 0;
  const MUSTACHE_EXPR$1 = MUSTACHE_EXPR,
    ERB_EXPR$1 = ERB_EXPR,
    TMPLIT_EXPR$1 = TMPLIT_EXPR,
    DATA_ATTR$1 = DATA_ATTR,
    ARIA_ATTR$1 = ARIA_ATTR,
    IS_SCRIPT_OR_DATA$1 = IS_SCRIPT_OR_DATA,
    ATTR_WHITESPACE$1 = ATTR_WHITESPACE,
    CUSTOM_ELEMENT$1 = CUSTOM_ELEMENT;
  let IS_ALLOWED_URI$1 = IS_ALLOWED_URI;
  /**
   * We consider the elements and attributes below to be safe. Ideally
   * don't add any new ones but feel free to remove unwanted ones.
   */
  let ALLOWED_TAGS = null;
  const DEFAULT_ALLOWED_TAGS = addToSet({}, [...html$1, ...svg$1, ...svgFilters, ...mathMl$1, ...text]);
  let ALLOWED_ATTR = null;
  const DEFAULT_ALLOWED_ATTR = addToSet({}, [...html, ...svg, ...mathMl, ...xml$1]);
  let CUSTOM_ELEMENT_HANDLING = null;
  let FORBID_TAGS = null;
  let FORBID_ATTR = null;
  const EXTRA_ELEMENT_HANDLING = Object.seal(
    create(null, {
      tagCheck: {
        writable: true,
        configurable: false,
        enumerable: true,
        value: null,
      },
      attributeCheck: {
        writable: true,
        configurable: false,
        enumerable: true,
        value: null,
      },
    }),
  );
  let ALLOW_ARIA_ATTR = true;
  let ALLOW_DATA_ATTR = true;
  let ALLOW_UNKNOWN_PROTOCOLS = false;
  let ALLOW_SELF_CLOSE_IN_ATTR = true;
  let SAFE_FOR_TEMPLATES = false;
  let SAFE_FOR_XML = true;
  let WHOLE_DOCUMENT = false;
  let SET_CONFIG = false;
  let SET_CONFIG_ALLOWED_TAGS = null;
  let SET_CONFIG_ALLOWED_ATTR = null;
  let FORCE_BODY = false;
  let RETURN_DOM = false;
  let RETURN_DOM_FRAGMENT = false;
  let RETURN_TRUSTED_TYPE = false;
  let SANITIZE_DOM = true;
  let SANITIZE_NAMED_PROPS = false;
  const SANITIZE_NAMED_PROPS_PREFIX = 'user-content-';
  let KEEP_CONTENT = true;
  let IN_PLACE = false;
  let IN_PLACE_VISITED = null;
  let USE_PROFILES = false;
  let FORBID_CONTENTS = null;
  const DEFAULT_FORBID_CONTENTS = addToSet({}, [
    'annotation-xml',
    'audio',
    'colgroup',
    'desc',
    'foreignobject',
    'head',
    'iframe',
    'math',
    'mi',
    'mn',
    'mo',
    'ms',
    'mtext',
    'noembed',
    'noframes',
    'noscript',
    'plaintext',
    'script',
    'selectedcontent',
    'style',
    'svg',
    'template',
    'thead',
    'title',
    'video',
    'xmp',
  ]);
  let DATA_URI_TAGS = null;
  const DEFAULT_DATA_URI_TAGS = addToSet({}, ['audio', 'video', 'img', 'source', 'image', 'track']);
  let URI_SAFE_ATTRIBUTES = null;
  const DEFAULT_URI_SAFE_ATTRIBUTES = addToSet({}, [
    'alt',
    'class',
    'for',
    'id',
    'label',
    'name',
    'pattern',
    'placeholder',
    'role',
    'summary',
    'title',
    'value',
    'style',
    'xmlns',
  ]);
  const MATHML_NAMESPACE = 'http://www.w3.org/1998/Math/MathML';
  const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
  const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';
  let NAMESPACE = HTML_NAMESPACE;
  let IS_EMPTY_INPUT = false;
  let ALLOWED_NAMESPACES = null;
  const DEFAULT_ALLOWED_NAMESPACES = addToSet(
    {},
    [MATHML_NAMESPACE, SVG_NAMESPACE, HTML_NAMESPACE],
    stringToString,
  );
  const DEFAULT_MATHML_TEXT_INTEGRATION_POINTS = freeze(addToSet({}, ['mi', 'mo', 'mn', 'ms', 'mtext']));
  let MATHML_TEXT_INTEGRATION_POINTS = null;
  const DEFAULT_HTML_INTEGRATION_POINTS = freeze(addToSet({}, ['annotation-xml']));
  let HTML_INTEGRATION_POINTS = null;
  const DEFAULT_CUSTOM_ELEMENT_HANDLING = freeze(create(null));
  const COMMON_SVG_AND_HTML_ELEMENTS = addToSet({}, ['title', 'style', 'font', 'a', 'script']);
  let PARSER_MEDIA_TYPE = null;
  const SUPPORTED_PARSER_MEDIA_TYPES = ['application/xhtml+xml', 'text/html'];
  const DEFAULT_PARSER_MEDIA_TYPE = 'text/html';
  let transformCaseFunc = null;
  let CONFIG = null;
  const formElement = document.createElement('form');
  const isRegexOrFunction = function isRegexOrFunction(testValue) {
    return testValue instanceof RegExp || testValue instanceof Function;
  };
  /**
   * _parseConfig
   *
   * @param cfg optional config literal
   */
  const _parseConfig = function _parseConfig() {
    let cfg = arguments.length > 0 && arguments[0] !== void 0 ? arguments[0] : {};
    if (!cfg || typeof cfg !== 'object') cfg = {};
    cfg = clone(cfg);
    PARSER_MEDIA_TYPE =
      SUPPORTED_PARSER_MEDIA_TYPES.indexOf(cfg.PARSER_MEDIA_TYPE) === -1
        ? DEFAULT_PARSER_MEDIA_TYPE
        : cfg.PARSER_MEDIA_TYPE;
    transformCaseFunc = PARSER_MEDIA_TYPE === 'application/xhtml+xml' ? stringToString : stringToLowerCase;
    ALLOWED_TAGS = _resolveSetOption(cfg, 'ALLOWED_TAGS', DEFAULT_ALLOWED_TAGS, {
      transform: transformCaseFunc,
    });
    ALLOWED_ATTR = _resolveSetOption(cfg, 'ALLOWED_ATTR', DEFAULT_ALLOWED_ATTR, {
      transform: transformCaseFunc,
    });
    ALLOWED_NAMESPACES = _resolveSetOption(cfg, 'ALLOWED_NAMESPACES', DEFAULT_ALLOWED_NAMESPACES, {
      transform: stringToString,
    });
    URI_SAFE_ATTRIBUTES = _resolveSetOption(cfg, 'ADD_URI_SAFE_ATTR', DEFAULT_URI_SAFE_ATTRIBUTES, {
      transform: transformCaseFunc,
      base: DEFAULT_URI_SAFE_ATTRIBUTES,
    });
    DATA_URI_TAGS = _resolveSetOption(cfg, 'ADD_DATA_URI_TAGS', DEFAULT_DATA_URI_TAGS, {
      transform: transformCaseFunc,
      base: DEFAULT_DATA_URI_TAGS,
    });
    FORBID_CONTENTS = _resolveSetOption(cfg, 'FORBID_CONTENTS', DEFAULT_FORBID_CONTENTS, {
      transform: transformCaseFunc,
    });
    FORBID_TAGS = _resolveSetOption(cfg, 'FORBID_TAGS', create(null), { transform: transformCaseFunc });
    FORBID_ATTR = _resolveSetOption(cfg, 'FORBID_ATTR', create(null), { transform: transformCaseFunc });
    USE_PROFILES = objectHasOwnProperty(cfg, 'USE_PROFILES')
      ? cfg.USE_PROFILES && typeof cfg.USE_PROFILES === 'object'
        ? clone(cfg.USE_PROFILES)
        : cfg.USE_PROFILES
      : false;
    ALLOW_ARIA_ATTR = cfg.ALLOW_ARIA_ATTR !== false;
    ALLOW_DATA_ATTR = cfg.ALLOW_DATA_ATTR !== false;
    ALLOW_UNKNOWN_PROTOCOLS = cfg.ALLOW_UNKNOWN_PROTOCOLS || false;
    ALLOW_SELF_CLOSE_IN_ATTR = cfg.ALLOW_SELF_CLOSE_IN_ATTR !== false;
    SAFE_FOR_TEMPLATES = cfg.SAFE_FOR_TEMPLATES || false;
    SAFE_FOR_XML = cfg.SAFE_FOR_XML !== false;
    WHOLE_DOCUMENT = cfg.WHOLE_DOCUMENT || false;
    RETURN_DOM = cfg.RETURN_DOM || false;
    RETURN_DOM_FRAGMENT = cfg.RETURN_DOM_FRAGMENT || false;
    RETURN_TRUSTED_TYPE = cfg.RETURN_TRUSTED_TYPE || false;
    FORCE_BODY = cfg.FORCE_BODY || false;
    SANITIZE_DOM = cfg.SANITIZE_DOM !== false;
    SANITIZE_NAMED_PROPS = cfg.SANITIZE_NAMED_PROPS || false;
    KEEP_CONTENT = cfg.KEEP_CONTENT !== false;
    IN_PLACE = cfg.IN_PLACE || false;
    IS_ALLOWED_URI$1 = isRegex(cfg.ALLOWED_URI_REGEXP) ? cfg.ALLOWED_URI_REGEXP : IS_ALLOWED_URI;
    NAMESPACE = typeof cfg.NAMESPACE === 'string' ? cfg.NAMESPACE : HTML_NAMESPACE;
    MATHML_TEXT_INTEGRATION_POINTS = _resolveObjectOption(
      cfg,
      'MATHML_TEXT_INTEGRATION_POINTS',
      DEFAULT_MATHML_TEXT_INTEGRATION_POINTS,
    );
    HTML_INTEGRATION_POINTS = _resolveObjectOption(
      cfg,
      'HTML_INTEGRATION_POINTS',
      DEFAULT_HTML_INTEGRATION_POINTS,
    );
    const customElementHandling = _resolveObjectOption(
      cfg,
      'CUSTOM_ELEMENT_HANDLING',
      DEFAULT_CUSTOM_ELEMENT_HANDLING,
    );
    CUSTOM_ELEMENT_HANDLING = create(null);
    if (
      objectHasOwnProperty(customElementHandling, 'tagNameCheck') &&
      isRegexOrFunction(customElementHandling.tagNameCheck)
    )
      CUSTOM_ELEMENT_HANDLING.tagNameCheck = customElementHandling.tagNameCheck;
    if (
      objectHasOwnProperty(customElementHandling, 'attributeNameCheck') &&
      isRegexOrFunction(customElementHandling.attributeNameCheck)
    )
      CUSTOM_ELEMENT_HANDLING.attributeNameCheck = customElementHandling.attributeNameCheck;
    if (
      objectHasOwnProperty(customElementHandling, 'allowCustomizedBuiltInElements') &&
      typeof customElementHandling.allowCustomizedBuiltInElements === 'boolean'
    )
      CUSTOM_ELEMENT_HANDLING.allowCustomizedBuiltInElements =
        customElementHandling.allowCustomizedBuiltInElements;
    seal(CUSTOM_ELEMENT_HANDLING);
    if (SAFE_FOR_TEMPLATES) ALLOW_DATA_ATTR = false;
    if (RETURN_DOM_FRAGMENT) RETURN_DOM = true;
    if (USE_PROFILES) {
      if (
        (objectHasOwnProperty(cfg, 'ALLOWED_TAGS') || objectHasOwnProperty(cfg, 'ALLOWED_ATTR')) &&
        typeof console !== 'undefined' &&
        typeof console.warn === 'function'
      )
        console.warn(
          'DOMPurify: USE_PROFILES overrides ALLOWED_TAGS and ALLOWED_ATTR. Do not use these options together.',
        );
      ALLOWED_TAGS = addToSet({}, text);
      ALLOWED_ATTR = create(null);
      if (USE_PROFILES.html === true) {
        addToSet(ALLOWED_TAGS, html$1);
        addToSet(ALLOWED_ATTR, html);
      }
      if (USE_PROFILES.svg === true) {
        addToSet(ALLOWED_TAGS, svg$1);
        addToSet(ALLOWED_ATTR, svg);
        addToSet(ALLOWED_ATTR, xml$1);
      }
      if (USE_PROFILES.svgFilters === true) {
        addToSet(ALLOWED_TAGS, svgFilters);
        addToSet(ALLOWED_ATTR, svg);
        addToSet(ALLOWED_ATTR, xml$1);
      }
      if (USE_PROFILES.mathMl === true) {
        addToSet(ALLOWED_TAGS, mathMl$1);
        addToSet(ALLOWED_ATTR, mathMl);
        addToSet(ALLOWED_ATTR, xml$1);
      }
    }
    EXTRA_ELEMENT_HANDLING.tagCheck = null;
    EXTRA_ELEMENT_HANDLING.attributeCheck = null;
    if (objectHasOwnProperty(cfg, 'ADD_TAGS')) {
      if (typeof cfg.ADD_TAGS === 'function') EXTRA_ELEMENT_HANDLING.tagCheck = cfg.ADD_TAGS;
      else if (arrayIsArray(cfg.ADD_TAGS)) {
        if (ALLOWED_TAGS === DEFAULT_ALLOWED_TAGS) ALLOWED_TAGS = cloneSet(ALLOWED_TAGS);
        addToSet(ALLOWED_TAGS, cfg.ADD_TAGS, transformCaseFunc);
      }
    }
    if (objectHasOwnProperty(cfg, 'ADD_ATTR')) {
      if (typeof cfg.ADD_ATTR === 'function') EXTRA_ELEMENT_HANDLING.attributeCheck = cfg.ADD_ATTR;
      else if (arrayIsArray(cfg.ADD_ATTR)) {
        if (ALLOWED_ATTR === DEFAULT_ALLOWED_ATTR) ALLOWED_ATTR = cloneSet(ALLOWED_ATTR);
        addToSet(ALLOWED_ATTR, cfg.ADD_ATTR, transformCaseFunc);
      }
    }
    if (objectHasOwnProperty(cfg, 'ADD_FORBID_CONTENTS') && arrayIsArray(cfg.ADD_FORBID_CONTENTS)) {
      if (FORBID_CONTENTS === DEFAULT_FORBID_CONTENTS) FORBID_CONTENTS = cloneSet(FORBID_CONTENTS);
      addToSet(FORBID_CONTENTS, cfg.ADD_FORBID_CONTENTS, transformCaseFunc);
    }
    if (KEEP_CONTENT) ALLOWED_TAGS['#text'] = true;
    if (WHOLE_DOCUMENT) addToSet(ALLOWED_TAGS, ['html', 'head', 'body']);
    if (ALLOWED_TAGS.table) {
      ALLOWED_TAGS.tbody = true;
      delete FORBID_TAGS.tbody;
    }
    if (cfg.TRUSTED_TYPES_POLICY) {
      if (typeof cfg.TRUSTED_TYPES_POLICY.createHTML !== 'function')
        throw typeErrorCreate('TRUSTED_TYPES_POLICY configuration option must provide a "createHTML" hook.');
      if (typeof cfg.TRUSTED_TYPES_POLICY.createScriptURL !== 'function')
        throw typeErrorCreate(
          'TRUSTED_TYPES_POLICY configuration option must provide a "createScriptURL" hook.',
        );
      const previousTrustedTypesPolicy = trustedTypesPolicy;
      trustedTypesPolicy = cfg.TRUSTED_TYPES_POLICY;
      try {
        emptyHTML = _createTrustedHTML('');
      } catch (error) {
        trustedTypesPolicy = previousTrustedTypesPolicy;
        throw error;
      }
    } else if (cfg.TRUSTED_TYPES_POLICY === null) {
      trustedTypesPolicy = void 0;
      emptyHTML = '';
    } else {
      if (trustedTypesPolicy === void 0) trustedTypesPolicy = _getDefaultTrustedTypesPolicy();
      if (trustedTypesPolicy && typeof emptyHTML === 'string') emptyHTML = _createTrustedHTML('');
    }
    CONFIG = freeze(cfg);
  };
  const ALL_SVG_TAGS = addToSet({}, [...svg$1, ...svgFilters, ...svgDisallowed]);
  const ALL_MATHML_TAGS = addToSet({}, [...mathMl$1, ...mathMlDisallowed]);
  /**
   * Namespace rules for an element in the SVG namespace.
   *
   * @param tagName the element's lowercase tag name
   * @param parentNamespace the (possibly simulated) parent's namespace
   * @param parentTagName the parent's lowercase tag name
   * @returns true if a spec-compliant parser could produce this element
   */
  const _checkSvgNamespace = function _checkSvgNamespace(tagName, parentNamespace, parentTagName) {
    if (parentNamespace === HTML_NAMESPACE) return tagName === 'svg';
    if (parentNamespace === MATHML_NAMESPACE)
      return (
        tagName === 'svg' &&
        (parentTagName === 'annotation-xml' || MATHML_TEXT_INTEGRATION_POINTS[parentTagName])
      );
    return Boolean(ALL_SVG_TAGS[tagName]);
  };
  /**
   * Namespace rules for an element in the MathML namespace.
   *
   * @param tagName the element's lowercase tag name
   * @param parentNamespace the (possibly simulated) parent's namespace
   * @param parentTagName the parent's lowercase tag name
   * @returns true if a spec-compliant parser could produce this element
   */
  const _checkMathMlNamespace = function _checkMathMlNamespace(tagName, parentNamespace, parentTagName) {
    if (parentNamespace === HTML_NAMESPACE) return tagName === 'math';
    if (parentNamespace === SVG_NAMESPACE)
      return tagName === 'math' && HTML_INTEGRATION_POINTS[parentTagName];
    return Boolean(ALL_MATHML_TAGS[tagName]);
  };
  /**
   * Namespace rules for an element in the HTML namespace.
   *
   * @param tagName the element's lowercase tag name
   * @param parentNamespace the (possibly simulated) parent's namespace
   * @param parentTagName the parent's lowercase tag name
   * @returns true if a spec-compliant parser could produce this element
   */
  const _checkHtmlNamespace = function _checkHtmlNamespace(tagName, parentNamespace, parentTagName) {
    if (parentNamespace === SVG_NAMESPACE && !HTML_INTEGRATION_POINTS[parentTagName]) return false;
    if (parentNamespace === MATHML_NAMESPACE && !MATHML_TEXT_INTEGRATION_POINTS[parentTagName]) return false;
    return !ALL_MATHML_TAGS[tagName] && (COMMON_SVG_AND_HTML_ELEMENTS[tagName] || !ALL_SVG_TAGS[tagName]);
  };
  /**
   * @param element a DOM element whose namespace is being checked
   * @returns Return false if the element has a
   *  namespace that a spec-compliant parser would never
   *  return. Return true otherwise.
   */
  const _checkValidNamespace = function _checkValidNamespace(element) {
    const elementNamespace = _readNamespaceURI(element);
    const tagName = stringToLowerCase(_readNodeName(element));
    const parentNode = getParentNode(element);
    let parentNamespace = NAMESPACE;
    let parentTagName = 'template';
    if (parentNode && _readNodeType(parentNode) === NODE_TYPE.element) {
      parentNamespace = _readNamespaceURI(parentNode);
      parentTagName = stringToLowerCase(_readNodeName(parentNode));
    }
    if (!ALLOWED_NAMESPACES[elementNamespace]) return false;
    if (elementNamespace === SVG_NAMESPACE)
      return _checkSvgNamespace(tagName, parentNamespace, parentTagName);
    if (elementNamespace === MATHML_NAMESPACE)
      return _checkMathMlNamespace(tagName, parentNamespace, parentTagName);
    if (elementNamespace === HTML_NAMESPACE)
      return _checkHtmlNamespace(tagName, parentNamespace, parentTagName);
    return PARSER_MEDIA_TYPE === 'application/xhtml+xml';
  };
  /**
   * _forceRemove
   *
   * @param node a DOM node
   */
  const _forceRemove = function _forceRemove(node) {
    arrayPush(DOMPurify.removed, { element: node });
    try {
      getParentNode(node).removeChild(node);
    } catch (_) {
      remove(node);
      if (!getParentNode(node))
        throw typeErrorCreate(
          'a node selected for removal could not be detached from its tree and cannot be safely returned; refusing to sanitize in place',
        );
    }
  };
  /**
   * Removes an Attr node as that exact node, without book-keeping. Name-based
   * removal lowercases the name in HTML documents and would miss a
   * case-preserved one such as `ONERROR`, so it is only the fallback for
   * clobbered or detached nodes.
   *
   * @param element the element to strip the attribute from
   * @param attribute the Attr node to remove
   * @param name the attribute's name, for the fallback path
   */
  const _stripAttributeNode = function _stripAttributeNode(element, attribute, name) {
    try {
      removeAttributeNode(element, attribute);
    } catch (_) {
      try {
        element.removeAttribute(name);
      } catch (_) {}
    }
  };
  /**
   * Fail-closed teardown of an in-place root: strip every disallowed attribute
   * in the subtree first, so nothing armed is left behind, then remove all
   * children and the root's own attributes.
   *
   * @param root the in-place root to empty
   */
  const _neutralizeRoot = function _neutralizeRoot(root) {
    _neutralizeSubtree(root);
    const childNodes = getChildNodes(root);
    if (childNodes)
      arrayForEach(arraySlice(childNodes), (child) => {
        try {
          remove(child);
        } catch (_) {}
      });
    if (_readNodeType(root) === NODE_TYPE.element) _stripAttributes(root, false);
  };
  /**
   * Removes an attribute, preferably as its exact Attr node: name-based
   * removal lowercases the name in HTML documents and misses case-preserved
   * names, e.g. from imported XHTML.
   *
   * @param name an Attribute name
   * @param element a DOM node
   * @param attr the exact Attr node to remove, when the caller has it
   */
  const _removeAttribute = function _removeAttribute(name, element, attr) {
    if (!attr)
      try {
        attr = element.getAttributeNode(name);
      } catch (_) {
        attr = null;
      }
    arrayPush(DOMPurify.removed, {
      attribute: attr || null,
      from: element,
    });
    if (attr) _stripAttributeNode(element, attr, name);
    else
      try {
        element.removeAttribute(name);
      } catch (_) {}
    if (name === 'is') {
      if (RETURN_DOM || RETURN_DOM_FRAGMENT)
        try {
          _forceRemove(element);
        } catch (_) {}
      else
        try {
          element.setAttribute(name, '');
        } catch (_) {}
    }
  };
  /**
   * Removes an element's attributes without book-keeping. Used to neutralize
   * nodes discarded from an in-place tree.
   *
   * @param element the element to strip
   * @param keepAllowed whether attributes on the allowlist stay
   */
  const _stripAttributes = function _stripAttributes(element, keepAllowed) {
    const attributes = getAttributes(element);
    if (!attributes) return;
    for (let i = attributes.length - 1; i >= 0; --i) {
      const attribute = attributes[i];
      const name = attribute && attribute.name;
      if (typeof name === 'string' && !(keepAllowed && ALLOWED_ATTR[transformCaseFunc(name)]))
        _stripAttributeNode(element, attribute, name);
    }
  };
  /**
   * Iterative depth-first walk, so deep trees cannot overflow the call stack,
   * reading through the cached getters, so clobbering cannot hide children.
   * When `visit` returns false, the node's children are skipped. With
   * `intoShadow`, open shadow roots are walked after their host's children.
   *
   * @param root where to start
   * @param visit called for every node
   * @param intoShadow whether to enter open shadow roots
   */
  const _walkTree = function _walkTree(root, visit) {
    let intoShadow = arguments.length > 2 && arguments[2] !== void 0 ? arguments[2] : false;
    const stack = [root];
    while (stack.length > 0) {
      const node = stack.pop();
      if (visit(node) === false) continue;
      if (intoShadow && _readNodeType(node) === NODE_TYPE.element) {
        const shadowRoot = getShadowRoot(node);
        if (_isDocumentFragment(shadowRoot)) stack.push(shadowRoot);
      }
      const childNodes = getChildNodes(node);
      if (childNodes) for (let i = childNodes.length - 1; i >= 0; --i) stack.push(childNodes[i]);
    }
  };
  /**
   * Strips disallowed attributes from every element of a discarded subtree,
   * so a handler that is already queued (a loading image) cannot fire.
   *
   * @param root the root of a removed subtree
   */
  const _neutralizeSubtree = function _neutralizeSubtree(root) {
    _walkTree(root, (node) => {
      if (_readNodeType(node) === NODE_TYPE.element) _stripAttributes(node, true);
    });
  };
  /**
   * All nodes under `root`, root first, including open shadow roots. Template
   * content is not entered, it is inert.
   *
   * @param root the in-place root
   * @return the nodes
   */
  const _collectLiveNodes = function _collectLiveNodes(root) {
    const nodes = [];
    _walkTree(
      root,
      (node) => {
        nodes.push(node);
      },
      true,
    );
    return nodes;
  };
  /**
   * Strips disallowed attributes from every element that was under the
   * in-place root when the call started and no longer is, whatever removed
   * or moved it.
   *
   * @param root the in-place root
   * @param before the root's nodes, collected before the walk
   */
  const _neutralizeEscapedElements = function _neutralizeEscapedElements(root, before) {
    const reachable = setCreate();
    arrayForEach(_collectLiveNodes(root), (node) => {
      if (_readNodeType(node) === NODE_TYPE.element) setAdd(reachable, node);
    });
    arrayForEach(before, (node) => {
      if (_readNodeType(node) === NODE_TYPE.element && !setHas(reachable, node)) _stripAttributes(node, true);
    });
  };
  /**
   * Neutralizes everything that left the in-place tree during the call: what
   * DOMPurify removed, and what hooks or custom elements removed or moved out.
   *
   * @param root the in-place root
   * @param before the root's nodes, collected before the walk
   * @return true if the root itself was removed
   */
  const _neutralizeDiscarded = function _neutralizeDiscarded(root, before) {
    let rootRemoved = false;
    arrayForEach(DOMPurify.removed, (entry) => {
      if (entry.element) {
        rootRemoved = rootRemoved || entry.element === root;
        _neutralizeSubtree(entry.element);
      }
    });
    _neutralizeEscapedElements(root, before);
    return rootRemoved;
  };
  const MAX_UNVISITED_ROUNDS = 8;
  /**
   * The walk only moves forward, so a node moved to a position it already
   * passed is never visited. Give every original node that is still in the
   * tree but unvisited the normal treatment, hooks included. Nodes created
   * during the call are left alone. Fails closed if the tree keeps changing.
   *
   * @param root the in-place root
   * @param before the root's nodes, collected before the walk
   */
  const _sanitizeUnvisitedNodes = function _sanitizeUnvisitedNodes(root, before) {
    const visited = IN_PLACE_VISITED;
    let original = null;
    const getOriginal = () => {
      if (!original) {
        original = setCreate();
        arrayForEach(before, (beforeNode) => {
          setAdd(original, beforeNode);
        });
      }
      return original;
    };
    for (let round = 0; ; round++) {
      const live = _collectLiveNodes(root);
      const containers = [root];
      let pending = false;
      arrayForEach(live, (node) => {
        if (_readNodeType(node) === NODE_TYPE.documentFragment) arrayPush(containers, node);
        else if (!pending && !setHas(visited, node)) pending = setHas(getOriginal(), node);
      });
      if (!pending) return;
      if (round >= MAX_UNVISITED_ROUNDS)
        throw typeErrorCreate('the tree kept changing during in-place sanitization; refusing to return it');
      arrayForEach(containers, (container, index) => {
        _sanitizeUnvisitedIn(container, index > 0, root, getOriginal());
      });
    }
  };
  /**
   * One _sanitizeUnvisitedNodes pass over the root or an open shadow root.
   *
   * @param container the root or an open shadow root
   * @param inShadow whether container is a shadow root
   * @param root the in-place root
   * @param original the root's nodes collected before the walk, as a set
   */
  const _sanitizeUnvisitedIn = function _sanitizeUnvisitedIn(container, inShadow, root, original) {
    const iterator = _createNodeIterator(container);
    let node;
    while ((node = iterator.nextNode())) {
      if (!setHas(original, node) || setHas(IN_PLACE_VISITED, node)) continue;
      if (inShadow) _executeHooks(hooks.uponSanitizeShadowNode, node, null);
      _sanitizeNode(node, root);
    }
  };
  /**
   * Records that _sanitizeElements processed `node`. No-op outside IN_PLACE.
   *
   * @param node the node being processed
   */
  const _markVisited = function _markVisited(node) {
    if (IN_PLACE_VISITED) setAdd(IN_PLACE_VISITED, node);
  };
  /**
   * Patch-linkage attributes (declarative partial updates): `patchsrc`
   * always, `for` everywhere except on <label> and <output>. Gated on
   * SAFE_FOR_XML. Shared by the IN_PLACE pre-pass and _isValidAttribute.
   *
   * @param lcName the transformCaseFunc'd attribute name
   * @param lcTag the transformCaseFunc'd tag name of the carrying element
   * @return true if the attribute is patch linkage and must be dropped
   */
  const _isPatchLinkageAttribute = function _isPatchLinkageAttribute(lcName, lcTag) {
    if (!SAFE_FOR_XML) return false;
    if (lcName === 'patchsrc') return true;
    return lcName === 'for' && lcTag !== 'label' && lcTag !== 'output';
  };
  /**
   * IN_PLACE pre-pass: sever all patch linkage before the walk, so no patch
   * can fire mid-walk into a part of the tree the walker already passed.
   * Removes range markers (processing instructions, comments with markup)
   * and strips linkage attributes. It cannot undo a patch that already fired.
   *
   * TODO: if the shipped feature can patch through `for` on <label>/<output>,
   * drop that pair here too.
   *
   * @param root the in-place root to sweep
   */
  const _neutralizePatchLinkage = function _neutralizePatchLinkage(root) {
    if (!SAFE_FOR_XML) return;
    _walkTree(root, (node) => {
      const nodeType = _readNodeType(node);
      if (
        nodeType === NODE_TYPE.processingInstruction ||
        (nodeType === NODE_TYPE.comment && regExpTest(COMMENT_MARKUP_PROBE, node.data))
      ) {
        try {
          remove(node);
        } catch (_) {}
        return false;
      }
      if (nodeType === NODE_TYPE.element) {
        const element = node;
        const lcTag = transformCaseFunc(_readNodeName(node));
        try {
          if (element.hasAttribute && element.hasAttribute('patchsrc')) element.removeAttribute('patchsrc');
          if (element.hasAttribute && element.hasAttribute('for') && _isPatchLinkageAttribute('for', lcTag))
            element.removeAttribute('for');
        } catch (_) {}
      }
      return true;
    });
  };
  /**
   * _initDocument
   *
   * @param dirty - a string of dirty markup
   * @return a DOM, filled with the dirty markup
   */
  const _initDocument = function _initDocument(dirty) {
    let doc = null;
    let leadingWhitespace = null;
    if (FORCE_BODY) dirty = '<remove></remove>' + dirty;
    else {
      const matches = stringMatch(dirty, LEADING_WHITESPACE);
      leadingWhitespace = matches && matches[0];
    }
    if (PARSER_MEDIA_TYPE === 'application/xhtml+xml' && NAMESPACE === HTML_NAMESPACE)
      dirty = '<html xmlns="http://www.w3.org/1999/xhtml"><head></head><body>' + dirty + '</body></html>';
    const dirtyPayload = trustedTypesPolicy ? _createTrustedHTML(dirty) : dirty;
    if (NAMESPACE === HTML_NAMESPACE)
      try {
        doc = new DOMParser().parseFromString(dirtyPayload, PARSER_MEDIA_TYPE);
      } catch (_) {}
    if (!doc || !doc.documentElement) {
      doc = implementation.createDocument(NAMESPACE, 'template', null);
      try {
        doc.documentElement.innerHTML = IS_EMPTY_INPUT ? emptyHTML : dirtyPayload;
      } catch (_) {}
    }
    const body = doc.body || doc.documentElement;
    if (dirty && leadingWhitespace)
      body.insertBefore(document.createTextNode(leadingWhitespace), body.childNodes[0] || null);
    if (NAMESPACE === HTML_NAMESPACE)
      return getElementsByTagName.call(doc, WHOLE_DOCUMENT ? 'html' : 'body')[0];
    return WHOLE_DOCUMENT ? doc.documentElement : body;
  };
  /**
   * Creates a NodeIterator over `root`. ownerDocument is read through the
   * cached getter: a form child named "ownerDocument" shadows the direct
   * read and would make createNodeIterator throw.
   *
   * @param root The node to start traversing on.
   * @param characterDataOnly whether to skip elements
   * @return The created NodeIterator
   */
  const _createNodeIterator = function _createNodeIterator(root) {
    let characterDataOnly = arguments.length > 1 && arguments[1] !== void 0 ? arguments[1] : false;
    const doc = getOwnerDocument ? getOwnerDocument(root) : root.ownerDocument;
    return createNodeIterator.call(
      doc || root,
      root,
      (characterDataOnly ? 0 : NodeFilter.SHOW_ELEMENT) |
        NodeFilter.SHOW_COMMENT |
        NodeFilter.SHOW_TEXT |
        NodeFilter.SHOW_PROCESSING_INSTRUCTION |
        NodeFilter.SHOW_CDATA_SECTION,
      null,
    );
  };
  /**
   * Replace template expression syntax (mustache, ERB, template
   * literal) with a space; shared by all SAFE_FOR_TEMPLATES scrub
   * sites. Order matters: mustache, then ERB, then template literal.
   *
   * @param value the string to scrub
   * @returns the scrubbed string
   */
  const _stripTemplateExpressions = function _stripTemplateExpressions(value) {
    value = stringReplace(value, MUSTACHE_EXPR$1, ' ');
    value = stringReplace(value, ERB_EXPR$1, ' ');
    value = stringReplace(value, TMPLIT_EXPR$1, ' ');
    return value;
  };
  /**
   * Strips template expressions from the character data under `node`,
   * template contents included. Runs after the walk, since an expression can
   * also form when a removed element leaves two text nodes adjacent. Works on
   * the nodes rather than on markup, which keeps node references intact and
   * sees `<%` unescaped. Attribute values are handled in _sanitizeAttributes.
   *
   * @param node The root element whose character data should be scrubbed.
   */
  const _scrubTemplateExpressions2 = function _scrubTemplateExpressions(node) {
    var _node$querySelectorAl;
    _scrubOwnCharacterData(node);
    const templates =
      (_node$querySelectorAl = node.querySelectorAll) === null || _node$querySelectorAl === void 0
        ? void 0
        : _node$querySelectorAl.call(node, 'template');
    if (templates)
      arrayForEach(templates, (tmpl) => {
        if (_isDocumentFragment(tmpl.content)) _scrubTemplateExpressions2(tmpl.content);
      });
  };
  /**
   * Normalizes `node` and strips template expressions from its own character
   * data. Template contents and shadow roots are not entered, their own
   * _sanitizeShadowDOM call scrubs them.
   *
   * @param node The root whose own character data should be scrubbed.
   */
  const _scrubOwnCharacterData = function _scrubOwnCharacterData(node) {
    node.normalize();
    const walker = _createNodeIterator(node, true);
    let currentNode = walker.nextNode();
    while (currentNode) {
      currentNode.data = _stripTemplateExpressions(currentNode.data);
      currentNode = walker.nextNode();
    }
  };
  /**
   * Detects DOM clobbering on a form, the only element whose named children
   * shadow its own properties. Each probe compares a direct read with what
   * the property has to be.
   *
   * @param element element to check for clobbering attacks
   * @return true if clobbered, false if safe
   */
  const _isClobbered = function _isClobbered(element) {
    const realTagName = getNodeName ? getNodeName(element) : null;
    if (typeof realTagName !== 'string') return false;
    if (transformCaseFunc(realTagName) !== 'form') return false;
    return (
      typeof element.nodeName !== 'string' ||
      typeof element.textContent !== 'string' ||
      typeof element.removeChild !== 'function' ||
      element.attributes !== getAttributes(element) ||
      typeof element.removeAttribute !== 'function' ||
      typeof element.removeAttributeNode !== 'function' ||
      typeof element.getAttributeNode !== 'function' ||
      typeof element.setAttribute !== 'function' ||
      typeof element.namespaceURI !== 'string' ||
      typeof element.insertBefore !== 'function' ||
      typeof element.hasChildNodes !== 'function' ||
      element.nodeType !== getNodeType(element) ||
      element.childNodes !== getChildNodes(element)
    );
  };
  /**
   * Reads nodeType through the cached getter, so the result holds for nodes
   * from any realm (GHSA-4w3q-35jp-p934) and cannot be clobbered.
   *
   * @param value anything
   * @return the node type, or null if value is not a DOM node
   */
  const _nodeTypeOf = function _nodeTypeOf(value) {
    if (!getNodeType || typeof value !== 'object' || value === null) return null;
    try {
      const nodeType = getNodeType(value);
      return typeof nodeType === 'number' ? nodeType : null;
    } catch (_) {
      return null;
    }
  };
  const _isDocumentFragment = function _isDocumentFragment(value) {
    return _nodeTypeOf(value) === NODE_TYPE.documentFragment;
  };
  const _isNode = function _isNode(value) {
    return _nodeTypeOf(value) !== null;
  };
  function _executeHooks(hooks, currentNode, data) {
    if (hooks.length === 0) return;
    arrayForEach(hooks, (hook) => {
      hook.call(DOMPurify, currentNode, data, CONFIG);
    });
  }
  /**
   * Structural-threat checks that condemn a node regardless of the
   * allowlists: mXSS via namespace confusion, risky CSS construction,
   * processing instructions, markup-bearing comments. Pure predicate;
   * the caller removes. Check order is load-bearing.
   *
   * @param currentNode the node to inspect
   * @param tagName the node's transformCaseFunc'd tag name
   * @param nodeType the node's type, read through the cached getter
   * @return true if the node must be removed
   */
  const _isUnsafeNode = function _isUnsafeNode(currentNode, tagName, nodeType) {
    if (
      SAFE_FOR_XML &&
      nodeType === NODE_TYPE.element &&
      currentNode.hasChildNodes() &&
      !_isNode(currentNode.firstElementChild) &&
      regExpTest(ELEMENT_MARKUP_PROBE, currentNode.textContent) &&
      regExpTest(ELEMENT_MARKUP_PROBE, currentNode.innerHTML)
    )
      return true;
    if (
      SAFE_FOR_XML &&
      LITERAL_TEXT_ELEMENTS[tagName] &&
      nodeType === NODE_TYPE.element &&
      _readNamespaceURI(currentNode) === HTML_NAMESPACE &&
      (_isNode(currentNode.firstElementChild) ||
        (typeof currentNode.textContent === 'string' &&
          regExpTest(ELEMENT_MARKUP_PROBE, currentNode.textContent)))
    )
      return true;
    if (nodeType === NODE_TYPE.processingInstruction) return true;
    if (SAFE_FOR_XML && nodeType === NODE_TYPE.comment && regExpTest(COMMENT_MARKUP_PROBE, currentNode.data))
      return true;
    return false;
  };
  /**
   * Evaluate a CUSTOM_ELEMENT_HANDLING check (a RegExp or a predicate
   * function, per the validation in _parseConfig) against a name.
   * Additional arguments are forwarded to predicate functions - the
   * attributeNameCheck predicate receives the tag name as its second
   * argument. A null/absent check never matches.
   *
   * @param check the configured tagNameCheck / attributeNameCheck value
   * @param name the name to test
   * @param args extra arguments forwarded to a predicate function
   * @return true if the check matches the name
   */
  const _matchesNameCheck = function _matchesNameCheck(check, name) {
    if (check instanceof RegExp) return regExpTest(check, name);
    if (check instanceof Function) {
      for (
        var _len = arguments.length, args = new Array(_len > 2 ? _len - 2 : 0), _key = 2;
        _key < _len;
        _key++
      )
        args[_key - 2] = arguments[_key];
      return Boolean(check(name, ...args));
    }
    return false;
  };
  /**
   * Handles a node whose tag is forbidden or not allowlisted: hoists its
   * content per KEEP_CONTENT and removes it. The one exception is a custom
   * element allowed via CUSTOM_ELEMENT_HANDLING, which is kept.
   *
   * @param currentNode the disallowed node
   * @param tagName the node's transformCaseFunc'd tag name
   * @return true if the node was removed, false if kept
   */
  const _sanitizeDisallowedNode = function _sanitizeDisallowedNode(currentNode, tagName, root) {
    if (
      !FORBID_TAGS[tagName] &&
      _isBasicCustomElement(tagName) &&
      _matchesNameCheck(CUSTOM_ELEMENT_HANDLING.tagNameCheck, tagName)
    )
      return false;
    if (KEEP_CONTENT && !FORBID_CONTENTS[tagName] && !FORBID_CONTENTS[stringToLowerCase(tagName)]) {
      const parentNode = getParentNode(currentNode);
      const childNodes = getChildNodes(currentNode);
      if (childNodes && parentNode) {
        const childCount = childNodes.length;
        for (let i = childCount - 1; i >= 0; --i) {
          const hoisted = currentNode === root ? cloneNode(childNodes[i], true) : childNodes[i];
          parentNode.insertBefore(hoisted, getNextSibling(currentNode));
        }
      }
    }
    _forceRemove(currentNode);
    return true;
  };
  /**
   * Forks an allowlist off its shared binding (the instance default or the
   * setConfig() capture) before a hook sees it, so a hook's widening stays
   * within the call. A set that is already call-local is returned as is.
   *
   * @param hookList the uponSanitize* hook array for this event
   * @param set the current ALLOWED_TAGS / ALLOWED_ATTR binding
   * @param defaultSet the per-instance DEFAULT_ALLOWED_* constant
   * @param setConfigSet the captured setConfig() binding, or null
   * @return a call-local clone if a hook is present and set is still shared,
   *   else set unchanged
   */
  const _forkSharedAllowlist = function _forkSharedAllowlist(hookList, set, defaultSet, setConfigSet) {
    if (hookList.length === 0) return set;
    return set === defaultSet || set === setConfigSet ? cloneSet(set) : set;
  };
  /**
   * A hook may have detached the node it was called for. If so, treat it as
   * removed and stop processing it; the walk root is exempt. On the IN_PLACE
   * path the detached subtree is neutralized right away.
   *
   * @param currentNode the node a hook may have detached
   * @param root the current walk root
   * @return true if the node was detached
   */
  const _handleHookDetachedNode = function _handleHookDetachedNode(currentNode, root) {
    if (currentNode === root || getParentNode(currentNode) !== null) return false;
    if (IN_PLACE) _neutralizeSubtree(currentNode);
    return true;
  };
  /**
   * _sanitizeElements
   *
   * @protect nodeName
   * @protect textContent
   * @protect removeChild
   * @param currentNode to check for permission to exist
   * @return true if node was killed, false if left alive
   */
  const _sanitizeElements = function _sanitizeElements(currentNode, root) {
    _markVisited(currentNode);
    _executeHooks(hooks.beforeSanitizeElements, currentNode, null);
    if (_handleHookDetachedNode(currentNode, root)) return true;
    if (_isClobbered(currentNode)) {
      _forceRemove(currentNode);
      return true;
    }
    const tagName = transformCaseFunc(_readNodeName(currentNode));
    const nodeType = _readNodeType(currentNode);
    ALLOWED_TAGS = _forkSharedAllowlist(
      hooks.uponSanitizeElement,
      ALLOWED_TAGS,
      DEFAULT_ALLOWED_TAGS,
      SET_CONFIG_ALLOWED_TAGS,
    );
    _executeHooks(hooks.uponSanitizeElement, currentNode, {
      tagName,
      allowedTags: ALLOWED_TAGS,
    });
    if (_handleHookDetachedNode(currentNode, root)) return true;
    if (_isUnsafeNode(currentNode, tagName, nodeType)) {
      _forceRemove(currentNode);
      return true;
    }
    if (
      FORBID_TAGS[tagName] ||
      (!(EXTRA_ELEMENT_HANDLING.tagCheck instanceof Function && EXTRA_ELEMENT_HANDLING.tagCheck(tagName)) &&
        !ALLOWED_TAGS[tagName])
    ) {
      const removed = _sanitizeDisallowedNode(currentNode, tagName, root);
      if (removed === false) {
        _executeHooks(hooks.afterSanitizeElements, currentNode, null);
        if (_handleHookDetachedNode(currentNode, root)) return true;
      }
      return removed;
    }
    if (nodeType === NODE_TYPE.element && !_checkValidNamespace(currentNode)) {
      _forceRemove(currentNode);
      return true;
    }
    if (
      (tagName === 'noscript' || tagName === 'noembed' || tagName === 'noframes') &&
      regExpTest(FALLBACK_TAG_CLOSE, currentNode.innerHTML)
    ) {
      _forceRemove(currentNode);
      return true;
    }
    if (SAFE_FOR_TEMPLATES && nodeType === NODE_TYPE.text) {
      const text = currentNode.textContent;
      const content = _stripTemplateExpressions(text);
      if (text !== content) {
        arrayPush(DOMPurify.removed, { element: currentNode.cloneNode() });
        currentNode.textContent = content;
      }
    }
    _executeHooks(hooks.afterSanitizeElements, currentNode, null);
    return _handleHookDetachedNode(currentNode, root);
  };
  /**
   * _isValidAttribute
   *
   * @param lcTag Lowercase tag name of containing element.
   * @param lcName Lowercase attribute name.
   * @param value Attribute value.
   * @return Returns true if `value` is valid, otherwise false.
   */
  const _isValidAttribute = function _isValidAttribute(lcTag, lcName, value) {
    if (FORBID_ATTR[lcName]) return false;
    if (_isPatchLinkageAttribute(lcName, lcTag)) return false;
    if (SANITIZE_DOM && (lcName === 'id' || lcName === 'name') && (value in document || value in formElement))
      return false;
    const nameIsPermitted =
      ALLOWED_ATTR[lcName] ||
      (EXTRA_ELEMENT_HANDLING.attributeCheck instanceof Function &&
        EXTRA_ELEMENT_HANDLING.attributeCheck(lcName, lcTag));
    if (ALLOW_DATA_ATTR && regExpTest(DATA_ATTR$1, lcName)) return true;
    if (ALLOW_ARIA_ATTR && regExpTest(ARIA_ATTR$1, lcName)) return true;
    if (!nameIsPermitted)
      return (
        (_isBasicCustomElement(lcTag) &&
          _matchesNameCheck(CUSTOM_ELEMENT_HANDLING.tagNameCheck, lcTag) &&
          _matchesNameCheck(CUSTOM_ELEMENT_HANDLING.attributeNameCheck, lcName, lcTag)) ||
        (lcName === 'is' &&
          CUSTOM_ELEMENT_HANDLING.allowCustomizedBuiltInElements &&
          _matchesNameCheck(CUSTOM_ELEMENT_HANDLING.tagNameCheck, value))
      );
    if (URI_SAFE_ATTRIBUTES[lcName]) return true;
    const compactValue = stringReplace(value, ATTR_WHITESPACE$1, '');
    if (regExpTest(IS_ALLOWED_URI$1, compactValue)) return true;
    if (
      (lcName === 'src' || lcName === 'xlink:href' || lcName === 'href') &&
      lcTag !== 'script' &&
      stringIndexOf(value, 'data:') === 0 &&
      DATA_URI_TAGS[lcTag]
    )
      return true;
    if (ALLOW_UNKNOWN_PROTOCOLS && !regExpTest(IS_SCRIPT_OR_DATA$1, compactValue)) return true;
    return !value;
  };
  const RESERVED_CUSTOM_ELEMENT_NAMES = addToSet({}, [
    'annotation-xml',
    'color-profile',
    'font-face',
    'font-face-format',
    'font-face-name',
    'font-face-src',
    'font-face-uri',
    'missing-glyph',
  ]);
  /**
   * _isBasicCustomElement
   * checks if at least one dash is included in tagName, and it's not the first char
   * for more sophisticated checking see https://github.com/sindresorhus/validate-element-name
   *
   * @param tagName name of the tag of the node to sanitize
   * @returns Returns true if the tag name meets the basic criteria for a custom element, otherwise false.
   */
  const _isBasicCustomElement = function _isBasicCustomElement(tagName) {
    return (
      !RESERVED_CUSTOM_ELEMENT_NAMES[stringToLowerCase(tagName)] && regExpTest(CUSTOM_ELEMENT$1, tagName)
    );
  };
  /**
   * Wrap an attribute value in the matching Trusted Types object when
   * the active policy requires it. Namespaced attributes pass through
   * unchanged (no TT support yet, see
   * https://bugs.chromium.org/p/chromium/issues/detail?id=1305293).
   *
   * @param lcTag lowercase tag name of the containing element
   * @param lcName lowercase attribute name
   * @param namespaceURI the attribute's namespace, if any
   * @param value the attribute value to wrap
   * @return the value, wrapped when Trusted Types demand it
   */
  const _applyTrustedTypesToAttribute = function _applyTrustedTypesToAttribute(
    lcTag,
    lcName,
    namespaceURI,
    value,
  ) {
    if (
      trustedTypesPolicy &&
      typeof trustedTypes === 'object' &&
      typeof trustedTypes.getAttributeType === 'function' &&
      !namespaceURI
    )
      switch (trustedTypes.getAttributeType(lcTag, lcName)) {
        case 'TrustedHTML':
          return _createTrustedHTML(value);
        case 'TrustedScriptURL':
          return _createTrustedScriptURL(value);
      }
    return value;
  };
  /**
   * Writes a changed attribute value back. If the new value clobbers, the
   * element is removed; if the write fails, the attribute is.
   *
   * @param currentNode the element carrying the attribute
   * @param name the attribute name as present on the element
   * @param namespaceURI the attribute's namespace, if any
   * @param value the new attribute value
   * @return true if the value was written without introducing clobbering
   */
  const _setAttributeValue = function _setAttributeValue(currentNode, name, namespaceURI, value) {
    try {
      if (namespaceURI) currentNode.setAttributeNS(namespaceURI, name, value);
      else currentNode.setAttribute(name, value);
      if (_isClobbered(currentNode)) {
        _forceRemove(currentNode);
        return false;
      }
      return true;
    } catch (_) {
      _removeAttribute(name, currentNode);
      return false;
    }
  };
  /**
   * Value checks that apply before a hook can force-keep an attribute. Also
   * used by isValidAttribute(), so it never approves a value that sanitize()
   * would strip.
   *
   * @param name the attribute name as found on the node (case preserved)
   * @param value the attribute value
   * @returns true if the attribute must be removed because of its value
   */
  const _isUnsafeAttributeValue = function _isUnsafeAttributeValue(name, value) {
    if (SAFE_FOR_XML && regExpTest(ATTR_VALUE_BREAKOUT, value)) return true;
    return stringToLowerCase(name) === 'attributename' && stringIndexOf(value, 'href') !== -1;
  };
  /**
   * _sanitizeAttributes
   *
   * @protect attributes
   * @protect nodeName
   * @protect removeAttribute
   * @protect setAttribute
   *
   * @param currentNode to sanitize
   * @param root the current walk root
   */
  const _sanitizeAttributes = function _sanitizeAttributes(currentNode, root) {
    _executeHooks(hooks.beforeSanitizeAttributes, currentNode, null);
    if (_handleHookDetachedNode(currentNode, root)) return;
    const attributes = currentNode.attributes;
    if (!attributes || _isClobbered(currentNode)) return;
    ALLOWED_ATTR = _forkSharedAllowlist(
      hooks.uponSanitizeAttribute,
      ALLOWED_ATTR,
      DEFAULT_ALLOWED_ATTR,
      SET_CONFIG_ALLOWED_ATTR,
    );
    const hookEvent = {
      attrName: '',
      attrValue: '',
      keepAttr: true,
      allowedAttributes: ALLOWED_ATTR,
      forceKeepAttr: void 0,
    };
    let l = attributes.length;
    const lcTag = transformCaseFunc(_readNodeName(currentNode));
    while (l--) {
      const attr = attributes[l];
      const name = attr.name,
        namespaceURI = attr.namespaceURI,
        attrValue = attr.value;
      const lcName = transformCaseFunc(name);
      const initValue = attrValue;
      let value = name === 'value' ? initValue : stringTrim(initValue);
      let recreatedNamedProp = false;
      hookEvent.attrName = lcName;
      hookEvent.attrValue = value;
      hookEvent.keepAttr = true;
      hookEvent.forceKeepAttr = void 0;
      _executeHooks(hooks.uponSanitizeAttribute, currentNode, hookEvent);
      value = hookEvent.attrValue;
      if (
        SANITIZE_NAMED_PROPS &&
        (lcName === 'id' || lcName === 'name') &&
        stringIndexOf(value, SANITIZE_NAMED_PROPS_PREFIX) !== 0
      ) {
        _removeAttribute(name, currentNode, attr);
        value = SANITIZE_NAMED_PROPS_PREFIX + value;
        recreatedNamedProp = true;
      }
      if (_isUnsafeAttributeValue(name, value)) {
        _removeAttribute(name, currentNode, attr);
        continue;
      }
      if (hookEvent.forceKeepAttr) continue;
      if (!hookEvent.keepAttr) {
        _removeAttribute(name, currentNode, attr);
        continue;
      }
      if (!ALLOW_SELF_CLOSE_IN_ATTR && regExpTest(SELF_CLOSING_TAG, value)) {
        _removeAttribute(name, currentNode, attr);
        continue;
      }
      if (SAFE_FOR_TEMPLATES) value = _stripTemplateExpressions(value);
      if (!_isValidAttribute(lcTag, lcName, value)) {
        _removeAttribute(name, currentNode, attr);
        continue;
      }
      value = _applyTrustedTypesToAttribute(lcTag, lcName, namespaceURI, value);
      if (value !== initValue) {
        if (_setAttributeValue(currentNode, name, namespaceURI, value) && recreatedNamedProp)
          arrayPop(DOMPurify.removed);
      }
    }
    _executeHooks(hooks.afterSanitizeAttributes, currentNode, null);
    _handleHookDetachedNode(currentNode, root);
  };
  /**
   * Sanitizes one node: the node itself, its attributes and, for a
   * template, its content.
   *
   * @param node the node to sanitize
   * @param root the current walk root
   */
  const _sanitizeNode = function _sanitizeNode(node, root) {
    _sanitizeElements(node, root);
    _sanitizeAttributes(node, root);
    if (_isDocumentFragment(node.content)) _sanitizeShadowDOM2(node.content);
  };
  /**
   * _sanitizeShadowDOM
   *
   * @param fragment to iterate over recursively
   */
  const _sanitizeShadowDOM2 = function _sanitizeShadowDOM(fragment) {
    let shadowNode = null;
    const shadowIterator = _createNodeIterator(fragment);
    _executeHooks(hooks.beforeSanitizeShadowDOM, fragment, null);
    while ((shadowNode = shadowIterator.nextNode())) {
      _executeHooks(hooks.uponSanitizeShadowNode, shadowNode, null);
      _sanitizeNode(shadowNode, fragment);
      if (_readNodeType(shadowNode) === NODE_TYPE.element) {
        const innerSr = getShadowRoot(shadowNode);
        if (_isDocumentFragment(innerSr)) {
          _sanitizeAttachedShadowRoots(innerSr);
          _sanitizeShadowDOM2(innerSr);
        }
      }
    }
    if (SAFE_FOR_TEMPLATES) _scrubOwnCharacterData(fragment);
    _executeHooks(hooks.afterSanitizeShadowDOM, fragment, null);
  };
  /**
   * Sanitizes every attached shadow root under `root`, since the node
   * iterator does not enter shadow trees. Needed for IN_PLACE input and for
   * DOM input whose clonable shadow roots were copied by importNode().
   *
   * @param root the subtree root to walk for attached shadow roots
   */
  const _sanitizeAttachedShadowRoots = function _sanitizeAttachedShadowRoots(root) {
    const stack = [
      {
        node: root,
        shadow: null,
      },
    ];
    while (stack.length > 0) {
      const item = stack.pop();
      if (item.shadow) {
        _sanitizeShadowDOM2(item.shadow);
        continue;
      }
      const node = item.node;
      const isElement = _readNodeType(node) === NODE_TYPE.element;
      const childNodes = getChildNodes(node);
      if (childNodes)
        for (let i = childNodes.length - 1; i >= 0; --i)
          stack.push({
            node: childNodes[i],
            shadow: null,
          });
      if (isElement) {
        const rootName = getNodeName ? getNodeName(node) : null;
        if (typeof rootName === 'string' && transformCaseFunc(rootName) === 'template') {
          const content = node.content;
          if (_isDocumentFragment(content))
            stack.push({
              node: content,
              shadow: null,
            });
        }
      }
      if (isElement) {
        const sr = getShadowRoot(node);
        if (_isDocumentFragment(sr))
          stack.push(
            {
              node: null,
              shadow: sr,
            },
            {
              node: sr,
              shadow: null,
            },
          );
      }
    }
  };
  DOMPurify.sanitize = function (dirty) {
    let cfg = arguments.length > 1 && arguments[1] !== void 0 ? arguments[1] : {};
    let body = null;
    let importedNode = null;
    let currentNode = null;
    let returnNode = null;
    IS_EMPTY_INPUT = !dirty;
    if (IS_EMPTY_INPUT) dirty = '<!-->';
    if (typeof dirty !== 'string' && !_isNode(dirty)) {
      dirty = stringifyValue(dirty);
      if (typeof dirty !== 'string') throw typeErrorCreate('dirty is not a string, aborting');
    }
    if (!DOMPurify.isSupported) return dirty;
    if (SET_CONFIG) {
      ALLOWED_TAGS = SET_CONFIG_ALLOWED_TAGS;
      ALLOWED_ATTR = SET_CONFIG_ALLOWED_ATTR;
    } else _parseConfig(cfg);
    DOMPurify.removed = [];
    const inPlace = IN_PLACE && typeof dirty !== 'string' && _isNode(dirty);
    let inPlaceNodes = [];
    const outerVisited = IN_PLACE_VISITED;
    if (inPlace) {
      _neutralizePatchLinkage(dirty);
      const nn = _readNodeName(dirty);
      if (typeof nn === 'string') {
        const tagName = transformCaseFunc(nn);
        if (!ALLOWED_TAGS[tagName] || FORBID_TAGS[tagName]) {
          _neutralizeRoot(dirty);
          throw typeErrorCreate('root node is forbidden and cannot be sanitized in-place');
        }
      }
      if (_isClobbered(dirty)) {
        _neutralizeRoot(dirty);
        throw typeErrorCreate('root node is clobbered and cannot be sanitized in-place');
      }
      inPlaceNodes = _collectLiveNodes(dirty);
      IN_PLACE_VISITED = setCreate();
    } else if (_isNode(dirty)) {
      body = _initDocument('<!---->');
      importedNode = body.ownerDocument.importNode(dirty, true);
      if (importedNode.nodeType === NODE_TYPE.element && importedNode.nodeName === 'BODY')
        body = importedNode;
      else if (importedNode.nodeName === 'HTML') body = importedNode;
      else body.appendChild(importedNode);
      _sanitizeAttachedShadowRoots(body);
    } else {
      if (!RETURN_DOM && !SAFE_FOR_TEMPLATES && !WHOLE_DOCUMENT && dirty.indexOf('<') === -1)
        return _signOutput(dirty);
      body = _initDocument(dirty);
      if (!body) return RETURN_DOM ? null : RETURN_TRUSTED_TYPE ? emptyHTML : '';
    }
    if (body && FORCE_BODY) _forceRemove(body.firstChild);
    const walkRoot = inPlace ? dirty : body;
    try {
      if (inPlace) _sanitizeAttachedShadowRoots(dirty);
      const nodeIterator = _createNodeIterator(walkRoot);
      while ((currentNode = nodeIterator.nextNode())) _sanitizeNode(currentNode, walkRoot);
      if (inPlace) _sanitizeUnvisitedNodes(dirty, inPlaceNodes);
    } catch (error) {
      if (inPlace) {
        _neutralizeRoot(dirty);
        _neutralizeDiscarded(dirty, inPlaceNodes);
      }
      throw error;
    } finally {
      IN_PLACE_VISITED = outerVisited;
    }
    if (inPlace) {
      if (_neutralizeDiscarded(dirty, inPlaceNodes))
        throw typeErrorCreate(
          'a node selected for removal could not be safely returned; refusing to sanitize in place',
        );
      if (SAFE_FOR_TEMPLATES) _scrubTemplateExpressions2(dirty);
      return dirty;
    }
    if (RETURN_DOM) {
      if (SAFE_FOR_TEMPLATES) _scrubTemplateExpressions2(body);
      if (RETURN_DOM_FRAGMENT) {
        returnNode = createDocumentFragment.call(body.ownerDocument);
        while (body.firstChild) returnNode.appendChild(body.firstChild);
      } else returnNode = body;
      if (ALLOWED_ATTR.shadowroot || ALLOWED_ATTR.shadowrootmode)
        returnNode = importNode.call(originalDocument, returnNode, true);
      return returnNode;
    }
    const serialize = () => (WHOLE_DOCUMENT ? body.outerHTML : body.innerHTML);
    let serializedHTML = serialize();
    if (SAFE_FOR_TEMPLATES && regExpTest(TMPL_MARKER_SERIALIZED, serializedHTML)) {
      _scrubOwnCharacterData(body);
      serializedHTML = serialize();
    }
    if (
      WHOLE_DOCUMENT &&
      ALLOWED_TAGS['!doctype'] &&
      body.ownerDocument &&
      body.ownerDocument.doctype &&
      body.ownerDocument.doctype.name &&
      regExpTest(DOCTYPE_NAME, body.ownerDocument.doctype.name)
    )
      serializedHTML = '<!DOCTYPE ' + body.ownerDocument.doctype.name + '>\n' + serializedHTML;
    return _signOutput(serializedHTML);
  };
  DOMPurify.setConfig = function () {
    let cfg = arguments.length > 0 && arguments[0] !== void 0 ? arguments[0] : {};
    _parseConfig(cfg);
    SET_CONFIG = true;
    SET_CONFIG_ALLOWED_TAGS = ALLOWED_TAGS;
    SET_CONFIG_ALLOWED_ATTR = ALLOWED_ATTR;
  };
  DOMPurify.clearConfig = function () {
    CONFIG = null;
    SET_CONFIG = false;
    SET_CONFIG_ALLOWED_TAGS = null;
    SET_CONFIG_ALLOWED_ATTR = null;
    trustedTypesPolicy = defaultTrustedTypesPolicy;
    emptyHTML = '';
  };
  DOMPurify.isValidAttribute = function (tag, attr, value) {
    if (!CONFIG) _parseConfig({});
    const lcTag = transformCaseFunc(tag);
    const lcName = transformCaseFunc(attr);
    if (
      typeof value === 'string' &&
      (_isUnsafeAttributeValue(attr, value) ||
        (!ALLOW_SELF_CLOSE_IN_ATTR && regExpTest(SELF_CLOSING_TAG, value)))
    )
      return false;
    return _isValidAttribute(lcTag, lcName, value);
  };
  DOMPurify.addHook = function (entryPoint, hookFunction) {
    if (typeof hookFunction !== 'function') return;
    if (!objectHasOwnProperty(hooks, entryPoint)) return;
    arrayPush(hooks[entryPoint], hookFunction);
  };
  DOMPurify.removeHook = function (entryPoint, hookFunction) {
    if (!objectHasOwnProperty(hooks, entryPoint)) return;
    if (hookFunction !== void 0) {
      const index = arrayLastIndexOf(hooks[entryPoint], hookFunction);
      return index === -1 ? void 0 : arraySplice(hooks[entryPoint], index, 1)[0];
    }
    return arrayPop(hooks[entryPoint]);
  };
  DOMPurify.removeHooks = function (entryPoint) {
    if (!objectHasOwnProperty(hooks, entryPoint)) return;
    hooks[entryPoint] = [];
  };
  DOMPurify.removeAllHooks = function () {
    hooks = _createHooksMap();
  };
  return DOMPurify;
}
var purify_default = createDOMPurify();
var core_default = /* @__PURE__ */ __toESM(
  /* @__PURE__ */ __commonJSMin((exports, module) => {
    function deepFreeze(obj) {
      if (obj instanceof Map)
        obj.clear =
          obj.delete =
          obj.set =
            function () {
              throw new Error('map is read-only');
            };
      else if (obj instanceof Set)
        obj.add =
          obj.clear =
          obj.delete =
            function () {
              throw new Error('set is read-only');
            };
      Object.freeze(obj);
      Object.getOwnPropertyNames(obj).forEach((name) => {
        const prop = obj[name];
        const type = typeof prop;
        if ((type === 'object' || type === 'function') && !Object.isFrozen(prop)) deepFreeze(prop);
      });
      return obj;
    }
    /** @typedef {import('highlight.js').CallbackResponse} CallbackResponse */
    /** @typedef {import('highlight.js').CompiledMode} CompiledMode */
    /** @implements CallbackResponse */
    var Response = class {
      /**
       * @param {CompiledMode} mode
       */
      constructor(mode) {
        if (mode.data === void 0) mode.data = {};
        this.data = mode.data;
        this.isMatchIgnored = false;
      }
      ignoreMatch() {
        this.isMatchIgnored = true;
      }
    };
    /**
     * @param {string} value
     * @returns {string}
     */
    function escapeHTML(value) {
      return value
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#x27;');
    }
    /**
     * performs a shallow merge of multiple objects into one
     *
     * @template T
     * @param {T} original
     * @param {Record<string,any>[]} objects
     * @returns {T} a single new object
     */
    function inherit$1(original, ...objects) {
      /** @type Record<string,any> */
      const result = Object.create(null);
      for (const key in original) result[key] = original[key];
      objects.forEach(function (obj) {
        for (const key in obj) result[key] = obj[key];
      });
      return result;
    }
    /**
     * @typedef {object} Renderer
     * @property {(text: string) => void} addText
     * @property {(node: Node) => void} openNode
     * @property {(node: Node) => void} closeNode
     * @property {() => string} value
     */
    /** @typedef {{scope?: string, language?: string, sublanguage?: boolean}} Node */
    /** @typedef {{walk: (r: Renderer) => void}} Tree */
    /** */
    var SPAN_CLOSE = '</span>';
    /**
     * Determines if a node needs to be wrapped in <span>
     *
     * @param {Node} node */
    var emitsWrappingTags = (node) => {
      return !!node.scope;
    };
    /**
     *
     * @param {string} name
     * @param {{prefix:string}} options
     */
    var scopeToCSSClass = (name, { prefix }) => {
      if (name.startsWith('language:')) return name.replace('language:', 'language-');
      if (name.includes('.')) {
        const pieces = name.split('.');
        return [`${prefix}${pieces.shift()}`, ...pieces.map((x, i) => `${x}${'_'.repeat(i + 1)}`)].join(' ');
      }
      return `${prefix}${name}`;
    };
    /** @type {Renderer} */
    var HTMLRenderer = class {
      /**
       * Creates a new HTMLRenderer
       *
       * @param {Tree} parseTree - the parse tree (must support `walk` API)
       * @param {{classPrefix: string}} options
       */
      constructor(parseTree, options) {
        this.buffer = '';
        this.classPrefix = options.classPrefix;
        parseTree.walk(this);
      }
      /**
       * Adds texts to the output stream
       *
       * @param {string} text */
      addText(text) {
        this.buffer += escapeHTML(text);
      }
      /**
       * Adds a node open to the output stream (if needed)
       *
       * @param {Node} node */
      openNode(node) {
        if (!emitsWrappingTags(node)) return;
        const className = scopeToCSSClass(node.scope, { prefix: this.classPrefix });
        this.span(className);
      }
      /**
       * Adds a node close to the output stream (if needed)
       *
       * @param {Node} node */
      closeNode(node) {
        if (!emitsWrappingTags(node)) return;
        this.buffer += SPAN_CLOSE;
      }
      /**
       * returns the accumulated buffer
       */
      value() {
        return this.buffer;
      }
      /**
       * Builds a span element
       *
       * @param {string} className */
      span(className) {
        this.buffer += `<span class="${className}">`;
      }
    };
    /** @typedef {{scope?: string, language?: string, children: Node[]} | string} Node */
    /** @typedef {{scope?: string, language?: string, children: Node[]} } DataNode */
    /** @typedef {import('highlight.js').Emitter} Emitter */
    /**  */
    /** @returns {DataNode} */
    var newNode = (opts = {}) => {
      /** @type DataNode */
      const result = { children: [] };
      Object.assign(result, opts);
      return result;
    };
    var TokenTree = class TokenTree {
      constructor() {
        /** @type DataNode */
        this.rootNode = newNode();
        this.stack = [this.rootNode];
      }
      get top() {
        return this.stack[this.stack.length - 1];
      }
      get root() {
        return this.rootNode;
      }
      /** @param {Node} node */
      add(node) {
        this.top.children.push(node);
      }
      /** @param {string} scope */
      openNode(scope) {
        /** @type Node */
        const node = newNode({ scope });
        this.add(node);
        this.stack.push(node);
      }
      closeNode() {
        if (this.stack.length > 1) return this.stack.pop();
      }
      closeAllNodes() {
        while (this.closeNode());
      }
      toJSON() {
        return JSON.stringify(this.rootNode, null, 4);
      }
      /**
       * @typedef { import("./html_renderer").Renderer } Renderer
       * @param {Renderer} builder
       */
      walk(builder) {
        return this.constructor._walk(builder, this.rootNode);
      }
      /**
       * @param {Renderer} builder
       * @param {Node} node
       */
      static _walk(builder, node) {
        if (typeof node === 'string') builder.addText(node);
        else if (node.children) {
          builder.openNode(node);
          node.children.forEach((child) => this._walk(builder, child));
          builder.closeNode(node);
        }
        return builder;
      }
      /**
       * @param {Node} node
       */
      static _collapse(node) {
        if (typeof node === 'string') return;
        if (!node.children) return;
        if (node.children.every((el) => typeof el === 'string')) node.children = [node.children.join('')];
        else
          node.children.forEach((child) => {
            TokenTree._collapse(child);
          });
      }
    };
    /**
	Currently this is all private API, but this is the minimal API necessary
	that an Emitter must implement to fully support the parser.
	
	Minimal interface:
	
	- addText(text)
	- __addSublanguage(emitter, subLanguageName)
	- startScope(scope)
	- endScope()
	- finalize()
	- toHTML()
	
	*/
    /**
     * @implements {Emitter}
     */
    var TokenTreeEmitter = class extends TokenTree {
      /**
       * @param {*} options
       */
      constructor(options) {
        super();
        this.options = options;
      }
      /**
       * @param {string} text
       */
      addText(text) {
        if (text === '') return;
        this.add(text);
      }
      /** @param {string} scope */
      startScope(scope) {
        this.openNode(scope);
      }
      endScope() {
        this.closeNode();
      }
      /**
       * @param {Emitter & {root: DataNode}} emitter
       * @param {string} name
       */
      __addSublanguage(emitter, name) {
        /** @type DataNode */
        const node = emitter.root;
        if (name) node.scope = `language:${name}`;
        this.add(node);
      }
      toHTML() {
        return new HTMLRenderer(this, this.options).value();
      }
      finalize() {
        this.closeAllNodes();
        return true;
      }
    };
    /**
     * @param {string} value
     * @returns {RegExp}
     * */
    /**
     * @param {RegExp | string } re
     * @returns {string}
     */
    function source(re) {
      if (!re) return null;
      if (typeof re === 'string') return re;
      return re.source;
    }
    /**
     * @param {RegExp | string } re
     * @returns {string}
     */
    function lookahead(re) {
      return concat('(?=', re, ')');
    }
    /**
     * @param {RegExp | string } re
     * @returns {string}
     */
    function anyNumberOfTimes(re) {
      return concat('(?:', re, ')*');
    }
    /**
     * @param {RegExp | string } re
     * @returns {string}
     */
    function optional(re) {
      return concat('(?:', re, ')?');
    }
    /**
     * @param {...(RegExp | string) } args
     * @returns {string}
     */
    function concat(...args) {
      return args.map((x) => source(x)).join('');
    }
    /**
     * @param { Array<string | RegExp | Object> } args
     * @returns {object}
     */
    function stripOptionsFromArgs(args) {
      const opts = args[args.length - 1];
      if (typeof opts === 'object' && opts.constructor === Object) {
        args.splice(args.length - 1, 1);
        return opts;
      } else return {};
    }
    /** @typedef { {capture?: boolean} } RegexEitherOptions */
    /**
     * Any of the passed expresssions may match
     *
     * Creates a huge this | this | that | that match
     * @param {(RegExp | string)[] | [...(RegExp | string)[], RegexEitherOptions]} args
     * @returns {string}
     */
    function either(...args) {
      return (
        '(' + (stripOptionsFromArgs(args).capture ? '' : '?:') + args.map((x) => source(x)).join('|') + ')'
      );
    }
    /**
     * @param {RegExp | string} re
     * @returns {number}
     */
    function countMatchGroups(re) {
      return new RegExp(re.toString() + '|').exec('').length - 1;
    }
    /**
     * Does lexeme start with a regular expression match at the beginning
     * @param {RegExp} re
     * @param {string} lexeme
     */
    function startsWith(re, lexeme) {
      const match = re && re.exec(lexeme);
      return match && match.index === 0;
    }
    var BACKREF_RE = new RegExp(
      either(/\[(?:[^\\\]]|\\.)*\]/, /\(\?<(?![=!])[^>]+>/, /\(\?'[^']+'/, /\(\??/, /\\([1-9][0-9]*)/, /\\./),
    );
    /**
     * @param {(string | RegExp)[]} regexps
     * @param {{joinWith: string}} opts
     * @returns {string}
     */
    function _rewriteBackreferences(regexps, { joinWith }) {
      let numCaptures = 0;
      return regexps
        .map((regex) => {
          numCaptures += 1;
          const offset = numCaptures;
          let re = source(regex);
          let out = '';
          while (re.length > 0) {
            const match = BACKREF_RE.exec(re);
            if (!match) {
              out += re;
              break;
            }
            out += re.substring(0, match.index);
            re = re.substring(match.index + match[0].length);
            if (match[0][0] === '\\' && match[1]) out += '\\' + String(Number(match[1]) + offset);
            else {
              out += match[0];
              if (match[0] === '(' || /^\(\?[<']/.test(match[0])) numCaptures++;
            }
          }
          return out;
        })
        .map((re) => `(${re})`)
        .join(joinWith);
    }
    /** @typedef {import('highlight.js').Mode} Mode */
    /** @typedef {import('highlight.js').ModeCallback} ModeCallback */
    var MATCH_NOTHING_RE = /\b\B/;
    var IDENT_RE = '[a-zA-Z]\\w*';
    var UNDERSCORE_IDENT_RE = '[a-zA-Z_]\\w*';
    var NUMBER_RE = '\\b\\d+(\\.\\d+)?';
    var C_NUMBER_RE = '(-?)(\\b0[xX][a-fA-F0-9]+|(\\b\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?)';
    var BINARY_NUMBER_RE = '\\b(0b[01]+)';
    var RE_STARTERS_RE =
      '!|!=|!==|%|%=|&|&&|&=|\\*|\\*=|\\+|\\+=|,|-|-=|/=|/|:|;|<<|<<=|<=|<|===|==|=|>>>=|>>=|>=|>>>|>>|>|\\?|\\[|\\{|\\(|\\^|\\^=|\\||\\|=|\\|\\||~';
    /**
     * @param { Partial<Mode> & {binary?: string | RegExp} } opts
     */
    var SHEBANG = (opts = {}) => {
      const beginShebang = /^#![ ]*\//;
      if (opts.binary) opts.begin = concat(beginShebang, /.*\b/, opts.binary, /\b.*/);
      return inherit$1(
        {
          scope: 'meta',
          begin: beginShebang,
          end: /$/,
          relevance: 0,
          /** @type {ModeCallback} */
          'on:begin': (m, resp) => {
            if (m.index !== 0) resp.ignoreMatch();
          },
        },
        opts,
      );
    };
    var BACKSLASH_ESCAPE = {
      begin: '\\\\[\\s\\S]',
      relevance: 0,
    };
    var APOS_STRING_MODE = {
      scope: 'string',
      begin: "'",
      end: "'",
      illegal: '\\n',
      contains: [BACKSLASH_ESCAPE],
    };
    var QUOTE_STRING_MODE = {
      scope: 'string',
      begin: '"',
      end: '"',
      illegal: '\\n',
      contains: [BACKSLASH_ESCAPE],
    };
    var PHRASAL_WORDS_MODE = {
      begin:
        /\b(a|an|the|are|I'm|isn't|don't|doesn't|won't|but|just|should|pretty|simply|enough|gonna|going|wtf|so|such|will|you|your|they|like|more)\b/,
    };
    /**
     * Creates a comment mode
     *
     * @param {string | RegExp} begin
     * @param {string | RegExp} end
     * @param {Mode | {}} [modeOptions]
     * @returns {Partial<Mode>}
     */
    var COMMENT = function (begin, end, modeOptions = {}) {
      const mode = inherit$1(
        {
          scope: 'comment',
          begin,
          end,
          contains: [],
        },
        modeOptions,
      );
      mode.contains.push({
        scope: 'doctag',
        begin: '[ ]*(?=(TODO|FIXME|NOTE|BUG|OPTIMIZE|HACK|XXX):)',
        end: /(TODO|FIXME|NOTE|BUG|OPTIMIZE|HACK|XXX):/,
        excludeBegin: true,
        relevance: 0,
      });
      const ENGLISH_WORD = either(
        'I',
        'a',
        'is',
        'so',
        'us',
        'to',
        'at',
        'if',
        'in',
        'it',
        'on',
        /[A-Za-z]+['](d|ve|re|ll|t|s|n)/,
        /[A-Za-z]+[-][a-z]+/,
        /[A-Za-z][a-z]{2,}/,
      );
      mode.contains.push({ begin: concat(/[ ]+/, '(', ENGLISH_WORD, /[.]?[:]?([.][ ]|[ ])/, '){3}') });
      return mode;
    };
    var C_LINE_COMMENT_MODE = COMMENT('//', '$');
    var C_BLOCK_COMMENT_MODE = COMMENT('/\\*', '\\*/');
    var HASH_COMMENT_MODE = COMMENT('#', '$');
    var NUMBER_MODE = {
      scope: 'number',
      begin: NUMBER_RE,
      relevance: 0,
    };
    var C_NUMBER_MODE = {
      scope: 'number',
      begin: C_NUMBER_RE,
      relevance: 0,
    };
    var BINARY_NUMBER_MODE = {
      scope: 'number',
      begin: BINARY_NUMBER_RE,
      relevance: 0,
    };
    var REGEXP_MODE = {
      scope: 'regexp',
      begin: /\/(?=[^/\n]*\/)/,
      end: /\/[gimuy]*/,
      contains: [
        BACKSLASH_ESCAPE,
        {
          begin: /\[/,
          end: /\]/,
          relevance: 0,
          contains: [BACKSLASH_ESCAPE],
        },
      ],
    };
    var TITLE_MODE = {
      scope: 'title',
      begin: IDENT_RE,
      relevance: 0,
    };
    var UNDERSCORE_TITLE_MODE = {
      scope: 'title',
      begin: UNDERSCORE_IDENT_RE,
      relevance: 0,
    };
    var METHOD_GUARD = {
      begin: '\\.\\s*[a-zA-Z_]\\w*',
      relevance: 0,
    };
    /**
     * Adds end same as begin mechanics to a mode
     *
     * Your mode must include at least a single () match group as that first match
     * group is what is used for comparison
     * @param {Partial<Mode>} mode
     */
    var END_SAME_AS_BEGIN = function (mode) {
      return Object.assign(mode, {
        /** @type {ModeCallback} */
        'on:begin': (m, resp) => {
          resp.data._beginMatch = m[1];
        },
        /** @type {ModeCallback} */
        'on:end': (m, resp) => {
          if (resp.data._beginMatch !== m[1]) resp.ignoreMatch();
        },
      });
    };
    var MODES = /*#__PURE__*/ Object.freeze({
      __proto__: null,
      APOS_STRING_MODE,
      BACKSLASH_ESCAPE,
      BINARY_NUMBER_MODE,
      BINARY_NUMBER_RE,
      COMMENT,
      C_BLOCK_COMMENT_MODE,
      C_LINE_COMMENT_MODE,
      C_NUMBER_MODE,
      C_NUMBER_RE,
      END_SAME_AS_BEGIN,
      HASH_COMMENT_MODE,
      IDENT_RE,
      MATCH_NOTHING_RE,
      METHOD_GUARD,
      NUMBER_MODE,
      NUMBER_RE,
      PHRASAL_WORDS_MODE,
      QUOTE_STRING_MODE,
      REGEXP_MODE,
      RE_STARTERS_RE,
      SHEBANG,
      TITLE_MODE,
      UNDERSCORE_IDENT_RE,
      UNDERSCORE_TITLE_MODE,
    });
    /**
	@typedef {import('highlight.js').CallbackResponse} CallbackResponse
	@typedef {import('highlight.js').CompilerExt} CompilerExt
	*/
    /**
     * Skip a match if it has a preceding dot
     *
     * This is used for `beginKeywords` to prevent matching expressions such as
     * `bob.keyword.do()`. The mode compiler automatically wires this up as a
     * special _internal_ 'on:begin' callback for modes with `beginKeywords`
     * @param {RegExpMatchArray} match
     * @param {CallbackResponse} response
     */
    function skipIfHasPrecedingDot(match, response) {
      if (match.input[match.index - 1] === '.') response.ignoreMatch();
    }
    /**
     *
     * @type {CompilerExt}
     */
    function scopeClassName(mode, _parent) {
      if (mode.className !== void 0) {
        mode.scope = mode.className;
        delete mode.className;
      }
    }
    /**
     * `beginKeywords` syntactic sugar
     * @type {CompilerExt}
     */
    function beginKeywords(mode, parent) {
      if (!parent) return;
      if (!mode.beginKeywords) return;
      mode.begin = '\\b(' + mode.beginKeywords.split(' ').join('|') + ')(?!\\.)(?=\\b|\\s)';
      mode.__beforeBegin = skipIfHasPrecedingDot;
      mode.keywords = mode.keywords || mode.beginKeywords;
      delete mode.beginKeywords;
      if (mode.relevance === void 0) mode.relevance = 0;
    }
    /**
     * Allow `illegal` to contain an array of illegal values
     * @type {CompilerExt}
     */
    function compileIllegal(mode, _parent) {
      if (!Array.isArray(mode.illegal)) return;
      mode.illegal = either(...mode.illegal);
    }
    /**
     * `match` to match a single expression for readability
     * @type {CompilerExt}
     */
    function compileMatch(mode, _parent) {
      if (!mode.match) return;
      if (mode.begin || mode.end) throw new Error('begin & end are not supported with match');
      mode.begin = mode.match;
      delete mode.match;
    }
    /**
     * provides the default 1 relevance to all modes
     * @type {CompilerExt}
     */
    function compileRelevance(mode, _parent) {
      if (mode.relevance === void 0) mode.relevance = 1;
    }
    var beforeMatchExt = (mode, parent) => {
      if (!mode.beforeMatch) return;
      if (mode.starts) throw new Error('beforeMatch cannot be used with starts');
      const originalMode = Object.assign({}, mode);
      Object.keys(mode).forEach((key) => {
        delete mode[key];
      });
      mode.keywords = originalMode.keywords;
      mode.begin = concat(originalMode.beforeMatch, lookahead(originalMode.begin));
      mode.starts = {
        relevance: 0,
        contains: [Object.assign(originalMode, { endsParent: true })],
      };
      mode.relevance = 0;
      delete originalMode.beforeMatch;
    };
    var COMMON_KEYWORDS = ['of', 'and', 'for', 'in', 'not', 'or', 'if', 'then', 'parent', 'list', 'value'];
    var DEFAULT_KEYWORD_SCOPE = 'keyword';
    /**
     * Given raw keywords from a language definition, compile them.
     *
     * @param {string | Record<string,string|string[]> | Array<string>} rawKeywords
     * @param {boolean} caseInsensitive
     */
    function compileKeywords(rawKeywords, caseInsensitive, scopeName = DEFAULT_KEYWORD_SCOPE) {
      /** @type {import("highlight.js/private").KeywordDict} */
      const compiledKeywords = Object.create(null);
      if (typeof rawKeywords === 'string') compileList(scopeName, rawKeywords.split(' '));
      else if (Array.isArray(rawKeywords)) compileList(scopeName, rawKeywords);
      else
        Object.keys(rawKeywords).forEach(function (scopeName) {
          Object.assign(
            compiledKeywords,
            compileKeywords(rawKeywords[scopeName], caseInsensitive, scopeName),
          );
        });
      return compiledKeywords;
      /**
       * Compiles an individual list of keywords
       *
       * Ex: "for if when while|5"
       *
       * @param {string} scopeName
       * @param {Array<string>} keywordList
       */
      function compileList(scopeName, keywordList) {
        if (caseInsensitive) keywordList = keywordList.map((x) => x.toLowerCase());
        keywordList.forEach(function (keyword) {
          const pair = keyword.split('|');
          compiledKeywords[pair[0]] = [scopeName, scoreForKeyword(pair[0], pair[1])];
        });
      }
    }
    /**
     * Returns the proper score for a given keyword
     *
     * Also takes into account comment keywords, which will be scored 0 UNLESS
     * another score has been manually assigned.
     * @param {string} keyword
     * @param {string} [providedScore]
     */
    function scoreForKeyword(keyword, providedScore) {
      if (providedScore) return Number(providedScore);
      return commonKeyword(keyword) ? 0 : 1;
    }
    /**
     * Determines if a given keyword is common or not
     *
     * @param {string} keyword */
    function commonKeyword(keyword) {
      return COMMON_KEYWORDS.includes(keyword.toLowerCase());
    }
    /**
     * @type {Record<string, boolean>}
     */
    var seenDeprecations = {};
    /**
     * @param {string} message
     */
    var error = (message) => {
      console.error(message);
    };
    /**
     * @param {string} message
     * @param {any} args
     */
    var warn = (message, ...args) => {
      console.log(`WARN: ${message}`, ...args);
    };
    /**
     * @param {string} version
     * @param {string} message
     */
    var deprecated = (version, message) => {
      if (seenDeprecations[`${version}/${message}`]) return;
      console.log(`Deprecated as of ${version}. ${message}`);
      seenDeprecations[`${version}/${message}`] = true;
    };
    /**
	@typedef {import('highlight.js').CompiledMode} CompiledMode
	*/
    var MultiClassError = /* @__PURE__ */ new Error();
    /**
     * Renumbers labeled scope names to account for additional inner match
     * groups that otherwise would break everything.
     *
     * Lets say we 3 match scopes:
     *
     *   { 1 => ..., 2 => ..., 3 => ... }
     *
     * So what we need is a clean match like this:
     *
     *   (a)(b)(c) => [ "a", "b", "c" ]
     *
     * But this falls apart with inner match groups:
     *
     * (a)(((b)))(c) => ["a", "b", "b", "b", "c" ]
     *
     * Our scopes are now "out of alignment" and we're repeating `b` 3 times.
     * What needs to happen is the numbers are remapped:
     *
     *   { 1 => ..., 2 => ..., 5 => ... }
     *
     * We also need to know that the ONLY groups that should be output
     * are 1, 2, and 5.  This function handles this behavior.
     *
     * @param {CompiledMode} mode
     * @param {Array<RegExp | string>} regexes
     * @param {{key: "beginScope"|"endScope"}} opts
     */
    function remapScopeNames(mode, regexes, { key }) {
      let offset = 0;
      const scopeNames = mode[key];
      /** @type Record<number,boolean> */
      const emit = {};
      /** @type Record<number,string> */
      const positions = {};
      for (let i = 1; i <= regexes.length; i++) {
        positions[i + offset] = scopeNames[i];
        emit[i + offset] = true;
        offset += countMatchGroups(regexes[i - 1]);
      }
      mode[key] = positions;
      mode[key]._emit = emit;
      mode[key]._multi = true;
    }
    /**
     * @param {CompiledMode} mode
     */
    function beginMultiClass(mode) {
      if (!Array.isArray(mode.begin)) return;
      if (mode.skip || mode.excludeBegin || mode.returnBegin) {
        error('skip, excludeBegin, returnBegin not compatible with beginScope: {}');
        throw MultiClassError;
      }
      if (typeof mode.beginScope !== 'object' || mode.beginScope === null) {
        error('beginScope must be object');
        throw MultiClassError;
      }
      remapScopeNames(mode, mode.begin, { key: 'beginScope' });
      mode.begin = _rewriteBackreferences(mode.begin, { joinWith: '' });
    }
    /**
     * @param {CompiledMode} mode
     */
    function endMultiClass(mode) {
      if (!Array.isArray(mode.end)) return;
      if (mode.skip || mode.excludeEnd || mode.returnEnd) {
        error('skip, excludeEnd, returnEnd not compatible with endScope: {}');
        throw MultiClassError;
      }
      if (typeof mode.endScope !== 'object' || mode.endScope === null) {
        error('endScope must be object');
        throw MultiClassError;
      }
      remapScopeNames(mode, mode.end, { key: 'endScope' });
      mode.end = _rewriteBackreferences(mode.end, { joinWith: '' });
    }
    /**
	* this exists only to allow `scope: {}` to be used beside `match:`
	* Otherwise `beginScope` would necessary and that would look weird
	
	{
	match: [ /def/, /\w+/ ]
	scope: { 1: "keyword" , 2: "title" }
	}
	
	* @param {CompiledMode} mode
	*/
    function scopeSugar(mode) {
      if (mode.scope && typeof mode.scope === 'object' && mode.scope !== null) {
        mode.beginScope = mode.scope;
        delete mode.scope;
      }
    }
    /**
     * @param {CompiledMode} mode
     */
    function MultiClass(mode) {
      scopeSugar(mode);
      if (typeof mode.beginScope === 'string') mode.beginScope = { _wrap: mode.beginScope };
      if (typeof mode.endScope === 'string') mode.endScope = { _wrap: mode.endScope };
      beginMultiClass(mode);
      endMultiClass(mode);
    }
    /**
	@typedef {import('highlight.js').Mode} Mode
	@typedef {import('highlight.js').CompiledMode} CompiledMode
	@typedef {import('highlight.js').Language} Language
	@typedef {import('highlight.js').HLJSPlugin} HLJSPlugin
	@typedef {import('highlight.js').CompiledLanguage} CompiledLanguage
	*/
    /**
     * Compiles a language definition result
     *
     * Given the raw result of a language definition (Language), compiles this so
     * that it is ready for highlighting code.
     * @param {Language} language
     * @returns {CompiledLanguage}
     */
    function compileLanguage(language) {
      /**
       * Builds a regex with the case sensitivity of the current language
       *
       * @param {RegExp | string} value
       * @param {boolean} [global]
       */
      function langRe(value, global) {
        return new RegExp(
          source(value),
          'm' +
            (language.case_insensitive ? 'i' : '') +
            (language.unicodeRegex ? 'u' : '') +
            (global ? 'g' : ''),
        );
      }
      /**
		Stores multiple regular expressions and allows you to quickly search for
		them all in a string simultaneously - returning the first match.  It does
		this by creating a huge (a|b|c) regex - each individual item wrapped with ()
		and joined by `|` - using match groups to track position.  When a match is
		found checking which position in the array has content allows us to figure
		out which of the original regexes / match groups triggered the match.
		
		The match object itself (the result of `Regex.exec`) is returned but also
		enhanced by merging in any meta-data that was registered with the regex.
		This is how we keep track of which mode matched, and what type of rule
		(`illegal`, `begin`, end, etc).
		*/
      class MultiRegex {
        constructor() {
          this.matchIndexes = {};
          this.regexes = [];
          this.matchAt = 1;
          this.position = 0;
        }
        addRule(re, opts) {
          opts.position = this.position++;
          this.matchIndexes[this.matchAt] = opts;
          this.regexes.push([opts, re]);
          this.matchAt += countMatchGroups(re) + 1;
        }
        compile() {
          if (this.regexes.length === 0) this.exec = () => null;
          const terminators = this.regexes.map((el) => el[1]);
          this.matcherRe = langRe(_rewriteBackreferences(terminators, { joinWith: '|' }), true);
          this.lastIndex = 0;
        }
        /** @param {string} s */
        exec(s) {
          this.matcherRe.lastIndex = this.lastIndex;
          const match = this.matcherRe.exec(s);
          if (!match) return null;
          const i = match.findIndex((el, i) => i > 0 && el !== void 0);
          const matchData = this.matchIndexes[i];
          match.splice(0, i);
          return Object.assign(match, matchData);
        }
      }
      class ResumableMultiRegex {
        constructor() {
          this.rules = [];
          this.multiRegexes = [];
          this.count = 0;
          this.lastIndex = 0;
          this.regexIndex = 0;
        }
        getMatcher(index) {
          if (this.multiRegexes[index]) return this.multiRegexes[index];
          const matcher = new MultiRegex();
          this.rules.slice(index).forEach(([re, opts]) => matcher.addRule(re, opts));
          matcher.compile();
          this.multiRegexes[index] = matcher;
          return matcher;
        }
        resumingScanAtSamePosition() {
          return this.regexIndex !== 0;
        }
        considerAll() {
          this.regexIndex = 0;
        }
        addRule(re, opts) {
          this.rules.push([re, opts]);
          if (opts.type === 'begin') this.count++;
        }
        /** @param {string} s */
        exec(s) {
          const m = this.getMatcher(this.regexIndex);
          m.lastIndex = this.lastIndex;
          let result = m.exec(s);
          if (this.resumingScanAtSamePosition()) {
            if (result && result.index === this.lastIndex);
            else {
              const m2 = this.getMatcher(0);
              m2.lastIndex = this.lastIndex + 1;
              result = m2.exec(s);
            }
          }
          if (result) {
            this.regexIndex += result.position + 1;
            if (this.regexIndex === this.count) this.considerAll();
          }
          return result;
        }
      }
      /**
       * Given a mode, builds a huge ResumableMultiRegex that can be used to walk
       * the content and find matches.
       *
       * @param {CompiledMode} mode
       * @returns {ResumableMultiRegex}
       */
      function buildModeRegex(mode) {
        const mm = new ResumableMultiRegex();
        mode.contains.forEach((term) =>
          mm.addRule(term.begin, {
            rule: term,
            type: 'begin',
          }),
        );
        if (mode.terminatorEnd) mm.addRule(mode.terminatorEnd, { type: 'end' });
        if (mode.illegal) mm.addRule(mode.illegal, { type: 'illegal' });
        return mm;
      }
      /** skip vs abort vs ignore
       *
       * @skip   - The mode is still entered and exited normally (and contains rules apply),
       *           but all content is held and added to the parent buffer rather than being
       *           output when the mode ends.  Mostly used with `sublanguage` to build up
       *           a single large buffer than can be parsed by sublanguage.
       *
       *             - The mode begin ands ends normally.
       *             - Content matched is added to the parent mode buffer.
       *             - The parser cursor is moved forward normally.
       *
       * @abort  - A hack placeholder until we have ignore.  Aborts the mode (as if it
       *           never matched) but DOES NOT continue to match subsequent `contains`
       *           modes.  Abort is bad/suboptimal because it can result in modes
       *           farther down not getting applied because an earlier rule eats the
       *           content but then aborts.
       *
       *             - The mode does not begin.
       *             - Content matched by `begin` is added to the mode buffer.
       *             - The parser cursor is moved forward accordingly.
       *
       * @ignore - Ignores the mode (as if it never matched) and continues to match any
       *           subsequent `contains` modes.  Ignore isn't technically possible with
       *           the current parser implementation.
       *
       *             - The mode does not begin.
       *             - Content matched by `begin` is ignored.
       *             - The parser cursor is not moved forward.
       */
      /**
       * Compiles an individual mode
       *
       * This can raise an error if the mode contains certain detectable known logic
       * issues.
       * @param {Mode} mode
       * @param {CompiledMode | null} [parent]
       * @returns {CompiledMode | never}
       */
      function compileMode(mode, parent) {
        const cmode = mode;
        if (mode.isCompiled) return cmode;
        [scopeClassName, compileMatch, MultiClass, beforeMatchExt].forEach((ext) => ext(mode, parent));
        language.compilerExtensions.forEach((ext) => ext(mode, parent));
        mode.__beforeBegin = null;
        [beginKeywords, compileIllegal, compileRelevance].forEach((ext) => ext(mode, parent));
        mode.isCompiled = true;
        let keywordPattern = null;
        if (typeof mode.keywords === 'object' && mode.keywords.$pattern) {
          mode.keywords = Object.assign({}, mode.keywords);
          keywordPattern = mode.keywords.$pattern;
          delete mode.keywords.$pattern;
        }
        keywordPattern = keywordPattern || /\w+/;
        if (mode.keywords) mode.keywords = compileKeywords(mode.keywords, language.case_insensitive);
        cmode.keywordPatternRe = langRe(keywordPattern, true);
        if (parent) {
          if (!mode.begin) mode.begin = /\B|\b/;
          cmode.beginRe = langRe(cmode.begin);
          if (!mode.end && !mode.endsWithParent) mode.end = /\B|\b/;
          if (mode.end) cmode.endRe = langRe(cmode.end);
          cmode.terminatorEnd = source(cmode.end) || '';
          if (mode.endsWithParent && parent.terminatorEnd)
            cmode.terminatorEnd += (mode.end ? '|' : '') + parent.terminatorEnd;
        }
        if (mode.illegal) cmode.illegalRe = langRe(mode.illegal);
        if (!mode.contains) mode.contains = [];
        mode.contains = [].concat(
          ...mode.contains.map(function (c) {
            return expandOrCloneMode(c === 'self' ? mode : c);
          }),
        );
        mode.contains.forEach(function (c) {
          compileMode(c, cmode);
        });
        if (mode.starts) compileMode(mode.starts, parent);
        cmode.matcher = buildModeRegex(cmode);
        return cmode;
      }
      if (!language.compilerExtensions) language.compilerExtensions = [];
      if (language.contains && language.contains.includes('self'))
        throw new Error(
          'ERR: contains `self` is not supported at the top-level of a language.  See documentation.',
        );
      language.classNameAliases = inherit$1(language.classNameAliases || {});
      return compileMode(language);
    }
    /**
     * Determines if a mode has a dependency on it's parent or not
     *
     * If a mode does have a parent dependency then often we need to clone it if
     * it's used in multiple places so that each copy points to the correct parent,
     * where-as modes without a parent can often safely be re-used at the bottom of
     * a mode chain.
     *
     * @param {Mode | null} mode
     * @returns {boolean} - is there a dependency on the parent?
     * */
    function dependencyOnParent(mode) {
      if (!mode) return false;
      return mode.endsWithParent || dependencyOnParent(mode.starts);
    }
    /**
     * Expands a mode or clones it if necessary
     *
     * This is necessary for modes with parental dependenceis (see notes on
     * `dependencyOnParent`) and for nodes that have `variants` - which must then be
     * exploded into their own individual modes at compile time.
     *
     * @param {Mode} mode
     * @returns {Mode | Mode[]}
     * */
    function expandOrCloneMode(mode) {
      if (mode.variants && !mode.cachedVariants)
        mode.cachedVariants = mode.variants.map(function (variant) {
          return inherit$1(mode, { variants: null }, variant);
        });
      if (mode.cachedVariants) return mode.cachedVariants;
      if (dependencyOnParent(mode))
        return inherit$1(mode, { starts: mode.starts ? inherit$1(mode.starts) : null });
      if (Object.isFrozen(mode)) return inherit$1(mode);
      return mode;
    }
    var version = '11.12.0';
    var HTMLInjectionError = class extends Error {
      constructor(reason, html) {
        super(reason);
        this.name = 'HTMLInjectionError';
        this.html = html;
      }
    };
    /**
	@typedef {import('highlight.js').Mode} Mode
	@typedef {import('highlight.js').CompiledMode} CompiledMode
	@typedef {import('highlight.js').CompiledScope} CompiledScope
	@typedef {import('highlight.js').Language} Language
	@typedef {import('highlight.js').HLJSApi} HLJSApi
	@typedef {import('highlight.js').HLJSPlugin} HLJSPlugin
	@typedef {import('highlight.js').PluginEvent} PluginEvent
	@typedef {import('highlight.js').HLJSOptions} HLJSOptions
	@typedef {import('highlight.js').LanguageFn} LanguageFn
	@typedef {import('highlight.js').HighlightedHTMLElement} HighlightedHTMLElement
	@typedef {import('highlight.js').BeforeHighlightContext} BeforeHighlightContext
	@typedef {import('highlight.js/private').MatchType} MatchType
	@typedef {import('highlight.js/private').KeywordData} KeywordData
	@typedef {import('highlight.js/private').EnhancedMatch} EnhancedMatch
	@typedef {import('highlight.js/private').AnnotatedError} AnnotatedError
	@typedef {import('highlight.js').AutoHighlightResult} AutoHighlightResult
	@typedef {import('highlight.js').HighlightOptions} HighlightOptions
	@typedef {import('highlight.js').HighlightResult} HighlightResult
	*/
    var escape = escapeHTML;
    var inherit = inherit$1;
    var NO_MATCH = Symbol('nomatch');
    var MAX_KEYWORD_HITS = 7;
    /**
     * @param {any} hljs - object that is extended (legacy)
     * @returns {HLJSApi}
     */
    var HLJS = function (hljs) {
      /** @type {Record<string, Language>} */
      const languages = Object.create(null);
      /** @type {Record<string, string>} */
      const aliases = Object.create(null);
      /** @type {HLJSPlugin[]} */
      const plugins = [];
      let SAFE_MODE = true;
      const LANGUAGE_NOT_FOUND =
        "Could not find the language '{}', did you forget to load/include a language module?";
      /** @type {Language} */
      const PLAINTEXT_LANGUAGE = {
        disableAutodetect: true,
        name: 'Plain text',
        contains: [],
      };
      /** @type HLJSOptions */
      let options = {
        ignoreUnescapedHTML: false,
        throwUnescapedHTML: false,
        noHighlightRe: /^(no-?highlight)$/i,
        languageDetectRe: /\blang(?:uage)?-([\w-]+)\b/i,
        classPrefix: 'hljs-',
        cssSelector: 'pre code',
        languages: null,
        __emitter: TokenTreeEmitter,
      };
      /**
       * Tests a language name to see if highlighting should be skipped
       * @param {string} languageName
       */
      function shouldNotHighlight(languageName) {
        return options.noHighlightRe.test(languageName);
      }
      /**
       * @param {HighlightedHTMLElement} block - the HTML element to determine language for
       */
      function blockLanguage(block) {
        let classes = block.className + ' ';
        classes += block.parentNode ? block.parentNode.className : '';
        const match = options.languageDetectRe.exec(classes);
        if (match) {
          const language = getLanguage(match[1]);
          if (!language) {
            warn(LANGUAGE_NOT_FOUND.replace('{}', match[1]));
            warn('Falling back to no-highlight mode for this block.', block);
          }
          return language ? match[1] : 'no-highlight';
        }
        return classes.split(/\s+/).find((_class) => shouldNotHighlight(_class) || getLanguage(_class));
      }
      /**
       * Core highlighting function.
       *
       * OLD API
       * highlight(lang, code, ignoreIllegals, continuation)
       *
       * NEW API
       * highlight(code, {lang, ignoreIllegals})
       *
       * @param {string} codeOrLanguageName - the language to use for highlighting
       * @param {string | HighlightOptions} optionsOrCode - the code to highlight
       * @param {boolean} [ignoreIllegals] - whether to ignore illegal matches, default is to bail
       *
       * @returns {HighlightResult} Result - an object that represents the result
       * @property {string} language - the language name
       * @property {number} relevance - the relevance score
       * @property {string} value - the highlighted HTML code
       * @property {string} code - the original raw code
       * @property {CompiledMode} top - top of the current mode stack
       * @property {boolean} illegal - indicates whether any illegal matches were found
       */
      function highlight(codeOrLanguageName, optionsOrCode, ignoreIllegals) {
        let code = '';
        let languageName = '';
        if (typeof optionsOrCode === 'object') {
          code = codeOrLanguageName;
          ignoreIllegals = optionsOrCode.ignoreIllegals;
          languageName = optionsOrCode.language;
        } else {
          deprecated('10.7.0', 'highlight(lang, code, ...args) has been deprecated.');
          deprecated(
            '10.7.0',
            'Please use highlight(code, options) instead.\nhttps://github.com/highlightjs/highlight.js/issues/2277',
          );
          languageName = codeOrLanguageName;
          code = optionsOrCode;
        }
        if (ignoreIllegals === void 0) ignoreIllegals = true;
        /** @type {BeforeHighlightContext} */
        const context = {
          code,
          language: languageName,
        };
        fire('before:highlight', context);
        const result = context.result
          ? context.result
          : _highlight(context.language, context.code, ignoreIllegals);
        result.code = context.code;
        fire('after:highlight', result);
        return result;
      }
      /**
       * private highlight that's used internally and does not fire callbacks
       *
       * @param {string} languageName - the language to use for highlighting
       * @param {string} codeToHighlight - the code to highlight
       * @param {boolean?} [ignoreIllegals] - whether to ignore illegal matches, default is to bail
       * @param {CompiledMode?} [continuation] - current continuation mode, if any
       * @returns {HighlightResult} - result of the highlight operation
       */
      function _highlight(languageName, codeToHighlight, ignoreIllegals, continuation) {
        const keywordHits = Object.create(null);
        /**
         * Return keyword data if a match is a keyword
         * @param {CompiledMode} mode - current mode
         * @param {string} matchText - the textual match
         * @returns {KeywordData | false}
         */
        function keywordData(mode, matchText) {
          return mode.keywords[matchText];
        }
        function processKeywords() {
          if (!top.keywords) {
            emitter.addText(modeBuffer);
            return;
          }
          let lastIndex = 0;
          top.keywordPatternRe.lastIndex = 0;
          let match = top.keywordPatternRe.exec(modeBuffer);
          let buf = '';
          while (match) {
            buf += modeBuffer.substring(lastIndex, match.index);
            const word = language.case_insensitive ? match[0].toLowerCase() : match[0];
            const data = keywordData(top, word);
            if (data) {
              const [kind, keywordRelevance] = data;
              emitter.addText(buf);
              buf = '';
              keywordHits[word] = (keywordHits[word] || 0) + 1;
              if (keywordHits[word] <= MAX_KEYWORD_HITS) relevance += keywordRelevance;
              if (kind.startsWith('_')) buf += match[0];
              else {
                const cssClass = language.classNameAliases[kind] || kind;
                emitKeyword(match[0], cssClass);
              }
            } else buf += match[0];
            lastIndex = top.keywordPatternRe.lastIndex;
            match = top.keywordPatternRe.exec(modeBuffer);
          }
          buf += modeBuffer.substring(lastIndex);
          emitter.addText(buf);
        }
        function processSubLanguage() {
          if (modeBuffer === '') return;
          /** @type HighlightResult */
          let result = null;
          if (typeof top.subLanguage === 'string') {
            if (!languages[top.subLanguage]) {
              emitter.addText(modeBuffer);
              return;
            }
            result = _highlight(top.subLanguage, modeBuffer, true, continuations[top.subLanguage]);
            continuations[top.subLanguage] = result._top;
          } else result = highlightAuto(modeBuffer, top.subLanguage.length ? top.subLanguage : null);
          if (top.relevance > 0) relevance += result.relevance;
          emitter.__addSublanguage(result._emitter, result.language);
        }
        function processBuffer() {
          if (top.subLanguage != null) processSubLanguage();
          else processKeywords();
          modeBuffer = '';
        }
        /**
         * @param {string} text
         * @param {string} scope
         */
        function emitKeyword(keyword, scope) {
          if (keyword === '') return;
          emitter.startScope(scope);
          emitter.addText(keyword);
          emitter.endScope();
        }
        /**
         * @param {CompiledScope} scope
         * @param {RegExpMatchArray} match
         */
        function emitMultiClass(scope, match) {
          let i = 1;
          const max = match.length - 1;
          while (i <= max) {
            if (!scope._emit[i]) {
              i++;
              continue;
            }
            const klass = language.classNameAliases[scope[i]] || scope[i];
            const text = match[i];
            if (klass) emitKeyword(text, klass);
            else {
              modeBuffer = text;
              processKeywords();
              modeBuffer = '';
            }
            i++;
          }
        }
        /**
         * @param {CompiledMode} mode - new mode to start
         * @param {RegExpMatchArray} match
         */
        function startNewMode(mode, match) {
          if (mode.scope && typeof mode.scope === 'string')
            emitter.openNode(language.classNameAliases[mode.scope] || mode.scope);
          if (mode.beginScope) {
            if (mode.beginScope._wrap) {
              emitKeyword(
                modeBuffer,
                language.classNameAliases[mode.beginScope._wrap] || mode.beginScope._wrap,
              );
              modeBuffer = '';
            } else if (mode.beginScope._multi) {
              emitMultiClass(mode.beginScope, match);
              modeBuffer = '';
            }
          }
          top = Object.create(mode, { parent: { value: top } });
          return top;
        }
        /**
         * @param {CompiledMode } mode - the mode to potentially end
         * @param {RegExpMatchArray} match - the latest match
         * @param {string} matchPlusRemainder - match plus remainder of content
         * @returns {CompiledMode | void} - the next mode, or if void continue on in current mode
         */
        function endOfMode(mode, match, matchPlusRemainder) {
          let matched = startsWith(mode.endRe, matchPlusRemainder);
          if (matched) {
            if (mode['on:end']) {
              const resp = new Response(mode);
              mode['on:end'](match, resp);
              if (resp.isMatchIgnored) matched = false;
            }
            if (matched) {
              while (mode.endsParent && mode.parent) mode = mode.parent;
              return mode;
            }
          }
          if (mode.endsWithParent) return endOfMode(mode.parent, match, matchPlusRemainder);
        }
        /**
         * Handle matching but then ignoring a sequence of text
         *
         * @param {string} lexeme - string containing full match text
         */
        function doIgnore(lexeme) {
          if (top.matcher.regexIndex === 0) {
            modeBuffer += lexeme[0];
            return 1;
          } else {
            resumeScanAtSamePosition = true;
            return 0;
          }
        }
        /**
         * Handle the start of a new potential mode match
         *
         * @param {EnhancedMatch} match - the current match
         * @returns {number} how far to advance the parse cursor
         */
        function doBeginMatch(match) {
          const lexeme = match[0];
          const newMode = match.rule;
          const resp = new Response(newMode);
          const beforeCallbacks = [newMode.__beforeBegin, newMode['on:begin']];
          for (const cb of beforeCallbacks) {
            if (!cb) continue;
            cb(match, resp);
            if (resp.isMatchIgnored) return doIgnore(lexeme);
          }
          if (newMode.skip) modeBuffer += lexeme;
          else {
            if (newMode.excludeBegin) modeBuffer += lexeme;
            processBuffer();
            if (!newMode.returnBegin && !newMode.excludeBegin) modeBuffer = lexeme;
          }
          startNewMode(newMode, match);
          return newMode.returnBegin ? 0 : lexeme.length;
        }
        /**
         * Handle the potential end of mode
         *
         * @param {RegExpMatchArray} match - the current match
         */
        function doEndMatch(match) {
          const lexeme = match[0];
          const matchPlusRemainder = codeToHighlight.substring(match.index);
          const endMode = endOfMode(top, match, matchPlusRemainder);
          if (!endMode) return NO_MATCH;
          const origin = top;
          if (top.endScope && top.endScope._wrap) {
            processBuffer();
            emitKeyword(lexeme, top.endScope._wrap);
          } else if (top.endScope && top.endScope._multi) {
            processBuffer();
            emitMultiClass(top.endScope, match);
          } else if (origin.skip) modeBuffer += lexeme;
          else {
            if (!(origin.returnEnd || origin.excludeEnd)) modeBuffer += lexeme;
            processBuffer();
            if (origin.excludeEnd) modeBuffer = lexeme;
          }
          do {
            if (top.scope) emitter.closeNode();
            if (!top.skip && !top.subLanguage) relevance += top.relevance;
            top = top.parent;
          } while (top !== endMode.parent);
          if (endMode.starts) startNewMode(endMode.starts, match);
          return origin.returnEnd ? 0 : lexeme.length;
        }
        function processContinuations() {
          const list = [];
          for (let current = top; current !== language; current = current.parent)
            if (current.scope) list.unshift(current.scope);
          list.forEach((item) => emitter.openNode(item));
        }
        /** @type {{type?: MatchType, index?: number, rule?: Mode}}} */
        let lastMatch = {};
        /**
         *  Process an individual match
         *
         * @param {string} textBeforeMatch - text preceding the match (since the last match)
         * @param {EnhancedMatch} [match] - the match itself
         */
        function processLexeme(textBeforeMatch, match) {
          const lexeme = match && match[0];
          modeBuffer += textBeforeMatch;
          if (lexeme == null) {
            processBuffer();
            return 0;
          }
          if (
            lastMatch.type === 'begin' &&
            match.type === 'end' &&
            lastMatch.index === match.index &&
            lexeme === ''
          ) {
            modeBuffer += codeToHighlight.slice(match.index, match.index + 1);
            if (!SAFE_MODE) {
              /** @type {AnnotatedError} */
              const err = /* @__PURE__ */ new Error(`0 width match regex (${languageName})`);
              err.languageName = languageName;
              err.badRule = lastMatch.rule;
              throw err;
            }
            return 1;
          }
          lastMatch = match;
          if (match.type === 'begin') return doBeginMatch(match);
          else if (match.type === 'illegal' && !ignoreIllegals) {
            /** @type {AnnotatedError} */
            const err = /* @__PURE__ */ new Error(
              'Illegal lexeme "' + lexeme + '" for mode "' + (top.scope || '<unnamed>') + '"',
            );
            err.mode = top;
            throw err;
          } else if (match.type === 'end') {
            const processed = doEndMatch(match);
            if (processed !== NO_MATCH) return processed;
          }
          if (match.type === 'illegal' && lexeme === '') {
            if (match.index === codeToHighlight.length);
            else modeBuffer += '\n';
            return 1;
          }
          if (iterations > 1e5 && iterations > match.index * 3)
            throw /* @__PURE__ */ new Error('potential infinite loop, way more iterations than matches');
          modeBuffer += lexeme;
          return lexeme.length;
        }
        const language = getLanguage(languageName);
        if (!language) {
          error(LANGUAGE_NOT_FOUND.replace('{}', languageName));
          throw new Error('Unknown language: "' + languageName + '"');
        }
        const md = compileLanguage(language);
        let result = '';
        /** @type {CompiledMode} */
        let top = continuation || md;
        /** @type Record<string,CompiledMode> */
        const continuations = {};
        const emitter = new options.__emitter(options);
        processContinuations();
        let modeBuffer = '';
        let relevance = 0;
        let index = 0;
        let iterations = 0;
        let resumeScanAtSamePosition = false;
        try {
          if (!language.__emitTokens) {
            top.matcher.considerAll();
            for (;;) {
              iterations++;
              if (resumeScanAtSamePosition) resumeScanAtSamePosition = false;
              else top.matcher.considerAll();
              top.matcher.lastIndex = index;
              const match = top.matcher.exec(codeToHighlight);
              if (!match) break;
              const processedCount = processLexeme(codeToHighlight.substring(index, match.index), match);
              index = match.index + processedCount;
            }
            processLexeme(codeToHighlight.substring(index));
          } else language.__emitTokens(codeToHighlight, emitter);
          emitter.finalize();
          result = emitter.toHTML();
          return {
            language: languageName,
            value: result,
            relevance,
            illegal: false,
            _emitter: emitter,
            _top: top,
          };
        } catch (err) {
          if (err.message && err.message.includes('Illegal'))
            return {
              language: languageName,
              value: escape(codeToHighlight),
              illegal: true,
              relevance: 0,
              _illegalBy: {
                message: err.message,
                index,
                context: codeToHighlight.slice(index - 100, index + 100),
                mode: err.mode,
                resultSoFar: result,
              },
              _emitter: emitter,
            };
          else if (SAFE_MODE)
            return {
              language: languageName,
              value: escape(codeToHighlight),
              illegal: false,
              relevance: 0,
              errorRaised: err,
              _emitter: emitter,
              _top: top,
            };
          else throw err;
        }
      }
      /**
       * returns a valid highlight result, without actually doing any actual work,
       * auto highlight starts with this and it's possible for small snippets that
       * auto-detection may not find a better match
       * @param {string} code
       * @returns {HighlightResult}
       */
      function justTextHighlightResult(code) {
        const result = {
          value: escape(code),
          illegal: false,
          relevance: 0,
          _top: PLAINTEXT_LANGUAGE,
          _emitter: new options.__emitter(options),
        };
        result._emitter.addText(code);
        return result;
      }
      /**
		Highlighting with language detection. Accepts a string with the code to
		highlight. Returns an object with the following properties:
		
		- language (detected language)
		- relevance (int)
		- value (an HTML string with highlighting markup)
		- secondBest (object with the same structure for second-best heuristically
		detected language, may be absent)
		
		@param {string} code
		@param {Array<string>} [languageSubset]
		@returns {AutoHighlightResult}
		*/
      function highlightAuto(code, languageSubset) {
        languageSubset = languageSubset || options.languages || Object.keys(languages);
        const plaintext = justTextHighlightResult(code);
        const results = languageSubset
          .filter(getLanguage)
          .filter(autoDetection)
          .map((name) => _highlight(name, code, false));
        results.unshift(plaintext);
        const [best, secondBest] = results.sort((a, b) => {
          if (a.relevance !== b.relevance) return b.relevance - a.relevance;
          if (a.language && b.language) {
            if (getLanguage(a.language).supersetOf === b.language) return 1;
            else if (getLanguage(b.language).supersetOf === a.language) return -1;
          }
          return 0;
        });
        /** @type {AutoHighlightResult} */
        const result = best;
        result.secondBest = secondBest;
        return result;
      }
      /**
       * Builds new class name for block given the language name
       *
       * @param {HTMLElement} element
       * @param {string} [currentLang]
       * @param {string} [resultLang]
       */
      function updateClassName(element, currentLang, resultLang) {
        const language = (currentLang && aliases[currentLang]) || resultLang;
        element.classList.add('hljs');
        element.classList.add(`language-${language}`);
      }
      /**
       * Applies highlighting to a DOM node containing code.
       *
       * @param {HighlightedHTMLElement} element - the HTML element to highlight
       */
      function highlightElement(element) {
        /** @type HTMLElement */
        let node = null;
        const language = blockLanguage(element);
        if (shouldNotHighlight(language)) return;
        fire('before:highlightElement', {
          el: element,
          language,
        });
        if (element.dataset.highlighted) {
          console.log(
            'Element previously highlighted. To highlight again, first unset `dataset.highlighted`.',
            element,
          );
          return;
        }
        if (element.children.length > 0) {
          if (!options.ignoreUnescapedHTML) {
            console.warn(
              'One of your code blocks includes unescaped HTML. This is a potentially serious security risk.',
            );
            console.warn('https://github.com/highlightjs/highlight.js/wiki/security');
            console.warn('The element with unescaped HTML:');
            console.warn(element);
          }
          if (options.throwUnescapedHTML)
            throw new HTMLInjectionError(
              'One of your code blocks includes unescaped HTML.',
              element.innerHTML,
            );
        }
        node = element;
        const text = node.textContent;
        const result = language
          ? highlight(text, {
              language,
              ignoreIllegals: true,
            })
          : highlightAuto(text);
        element.innerHTML = result.value;
        element.dataset.highlighted = 'yes';
        updateClassName(element, language, result.language);
        element.result = {
          language: result.language,
          re: result.relevance,
          relevance: result.relevance,
        };
        if (result.secondBest)
          element.secondBest = {
            language: result.secondBest.language,
            relevance: result.secondBest.relevance,
          };
        fire('after:highlightElement', {
          el: element,
          result,
          text,
        });
      }
      /**
       * Updates highlight.js global options with the passed options
       *
       * @param {Partial<HLJSOptions>} userOptions
       */
      function configure(userOptions) {
        options = inherit(options, userOptions);
      }
      const initHighlighting = () => {
        highlightAll();
        deprecated('10.6.0', 'initHighlighting() deprecated.  Use highlightAll() now.');
      };
      function initHighlightingOnLoad() {
        highlightAll();
        deprecated('10.6.0', 'initHighlightingOnLoad() deprecated.  Use highlightAll() now.');
      }
      let wantsHighlight = false;
      /**
       * auto-highlights all pre>code elements on the page
       */
      function highlightAll() {
        function boot() {
          highlightAll();
        }
        if (document.readyState === 'loading') {
          if (!wantsHighlight) window.addEventListener('DOMContentLoaded', boot, false);
          wantsHighlight = true;
          return;
        }
        document.querySelectorAll(options.cssSelector).forEach(highlightElement);
      }
      /**
       * Register a language grammar module
       *
       * @param {string} languageName
       * @param {LanguageFn} languageDefinition
       */
      function registerLanguage(languageName, languageDefinition) {
        let lang = null;
        try {
          lang = languageDefinition(hljs);
        } catch (error$1) {
          error("Language definition for '{}' could not be registered.".replace('{}', languageName));
          if (!SAFE_MODE) throw error$1;
          else error(error$1);
          lang = PLAINTEXT_LANGUAGE;
        }
        if (!lang.name) lang.name = languageName;
        languages[languageName] = lang;
        lang.rawDefinition = languageDefinition.bind(null, hljs);
        if (lang.aliases) registerAliases(lang.aliases, { languageName });
      }
      /**
       * Remove a language grammar module
       *
       * @param {string} languageName
       */
      function unregisterLanguage(languageName) {
        delete languages[languageName];
        for (const alias of Object.keys(aliases)) if (aliases[alias] === languageName) delete aliases[alias];
      }
      /**
       * @returns {string[]} List of language internal names
       */
      function listLanguages() {
        return Object.keys(languages);
      }
      /**
       * @param {string} name - name of the language to retrieve
       * @returns {Language | undefined}
       */
      function getLanguage(name) {
        name = (name || '').toLowerCase();
        return languages[name] || languages[aliases[name]];
      }
      /**
       *
       * @param {string|string[]} aliasList - single alias or list of aliases
       * @param {{languageName: string}} opts
       */
      function registerAliases(aliasList, { languageName }) {
        if (typeof aliasList === 'string') aliasList = [aliasList];
        aliasList.forEach((alias) => {
          aliases[alias.toLowerCase()] = languageName;
        });
      }
      /**
       * Determines if a given language has auto-detection enabled
       * @param {string} name - name of the language
       */
      function autoDetection(name) {
        const lang = getLanguage(name);
        return lang && !lang.disableAutodetect;
      }
      /**
       * Upgrades the old highlightBlock plugins to the new
       * highlightElement API
       * @param {HLJSPlugin} plugin
       */
      function upgradePluginAPI(plugin) {
        if (plugin['before:highlightBlock'] && !plugin['before:highlightElement'])
          plugin['before:highlightElement'] = (data) => {
            plugin['before:highlightBlock'](Object.assign({ block: data.el }, data));
          };
        if (plugin['after:highlightBlock'] && !plugin['after:highlightElement'])
          plugin['after:highlightElement'] = (data) => {
            plugin['after:highlightBlock'](Object.assign({ block: data.el }, data));
          };
      }
      /**
       * @param {HLJSPlugin} plugin
       */
      function addPlugin(plugin) {
        upgradePluginAPI(plugin);
        plugins.push(plugin);
      }
      /**
       * @param {HLJSPlugin} plugin
       */
      function removePlugin(plugin) {
        const index = plugins.indexOf(plugin);
        if (index !== -1) plugins.splice(index, 1);
      }
      /**
       *
       * @param {PluginEvent} event
       * @param {any} args
       */
      function fire(event, args) {
        const cb = event;
        plugins.forEach(function (plugin) {
          if (plugin[cb]) plugin[cb](args);
        });
      }
      /**
       * DEPRECATED
       * @param {HighlightedHTMLElement} el
       */
      function deprecateHighlightBlock(el) {
        deprecated('10.7.0', 'highlightBlock will be removed entirely in v12.0');
        deprecated('10.7.0', 'Please use highlightElement now.');
        return highlightElement(el);
      }
      Object.assign(hljs, {
        highlight,
        highlightAuto,
        highlightAll,
        highlightElement,
        highlightBlock: deprecateHighlightBlock,
        configure,
        initHighlighting,
        initHighlightingOnLoad,
        registerLanguage,
        unregisterLanguage,
        listLanguages,
        getLanguage,
        registerAliases,
        autoDetection,
        inherit,
        addPlugin,
        removePlugin,
      });
      hljs.debugMode = function () {
        SAFE_MODE = false;
      };
      hljs.safeMode = function () {
        SAFE_MODE = true;
      };
      hljs.versionString = version;
      hljs.regex = {
        concat,
        lookahead,
        either,
        optional,
        anyNumberOfTimes,
      };
      for (const key in MODES) if (typeof MODES[key] === 'object') deepFreeze(MODES[key]);
      Object.assign(hljs, MODES);
      return hljs;
    };
    var highlight = HLJS({});
    highlight.newInstance = () => HLJS({});
    module.exports = highlight;
    highlight.HighlightJS = highlight;
    highlight.default = highlight;
  })(),
).default;
// node_modules/highlight.js/es/languages/bash.js
/** @type LanguageFn */
function bash(hljs) {
  const regex = hljs.regex;
  const VAR = {};
  const BRACED_VAR = {
    begin: /\$\{/,
    end: /\}/,
    contains: [
      'self',
      {
        begin: /:-/,
        contains: [VAR],
      },
    ],
  };
  Object.assign(VAR, {
    className: 'variable',
    variants: [{ begin: regex.concat(/\$[\w\d#@][\w\d_]*/, `(?![\\w\\d])(?![$])`) }, BRACED_VAR],
  });
  const SUBST = {
    className: 'subst',
    begin: /\$\(/,
    end: /\)/,
    contains: [hljs.BACKSLASH_ESCAPE],
  };
  const COMMENT = hljs.inherit(hljs.COMMENT(), {
    match: [/(^|\s)/, /#.*$/],
    scope: { 2: 'comment' },
  });
  const HERE_DOC = {
    begin: /<<-?\s*(?=\w+)/,
    starts: {
      contains: [
        hljs.END_SAME_AS_BEGIN({
          begin: /(\w+)/,
          end: /(\w+)/,
          className: 'string',
        }),
      ],
    },
  };
  const QUOTE_STRING = {
    className: 'string',
    begin: /"/,
    end: /"/,
    contains: [hljs.BACKSLASH_ESCAPE, VAR, SUBST],
  };
  SUBST.contains.push(QUOTE_STRING);
  const ESCAPED_QUOTE = { match: /\\"/ };
  const APOS_STRING = {
    className: 'string',
    begin: /'/,
    end: /'/,
  };
  const ESCAPED_APOS = { match: /\\'/ };
  const ARITHMETIC = {
    begin: /\$?\(\(/,
    end: /\)\)/,
    contains: [
      {
        begin: /\d+#[0-9a-f]+/,
        className: 'number',
      },
      hljs.NUMBER_MODE,
      VAR,
    ],
  };
  const KNOWN_SHEBANG = hljs.SHEBANG({
    binary: `(${['fish', 'bash', 'zsh', 'sh', 'csh', 'ksh', 'tcsh', 'dash', 'scsh'].join('|')})`,
    relevance: 10,
  });
  const FUNCTION = {
    className: 'function',
    begin: /\w[\w\d_]*\s*\(\s*\)\s*\{/,
    returnBegin: true,
    contains: [hljs.inherit(hljs.TITLE_MODE, { begin: /\w[\w\d_]*/ })],
    relevance: 0,
  };
  const KEYWORDS = [
    'if',
    'then',
    'else',
    'elif',
    'fi',
    'time',
    'for',
    'while',
    'until',
    'in',
    'do',
    'done',
    'case',
    'esac',
    'coproc',
    'function',
    'select',
  ];
  const LITERALS = ['true', 'false'];
  const PATH_MODE = { match: /(\/[a-z._-]+)+/ };
  const SHELL_BUILT_INS = [
    'break',
    'cd',
    'continue',
    'eval',
    'exec',
    'exit',
    'export',
    'getopts',
    'hash',
    'pwd',
    'readonly',
    'return',
    'shift',
    'test',
    'times',
    'trap',
    'umask',
    'unset',
  ];
  const BASH_BUILT_INS = [
    'alias',
    'bind',
    'builtin',
    'caller',
    'command',
    'declare',
    'echo',
    'enable',
    'help',
    'let',
    'local',
    'logout',
    'mapfile',
    'printf',
    'read',
    'readarray',
    'source',
    'sudo',
    'type',
    'typeset',
    'ulimit',
    'unalias',
  ];
  const ZSH_BUILT_INS = [
    'autoload',
    'bg',
    'bindkey',
    'bye',
    'cap',
    'chdir',
    'clone',
    'comparguments',
    'compcall',
    'compctl',
    'compdescribe',
    'compfiles',
    'compgroups',
    'compquote',
    'comptags',
    'comptry',
    'compvalues',
    'dirs',
    'disable',
    'disown',
    'echotc',
    'echoti',
    'emulate',
    'fc',
    'fg',
    'float',
    'functions',
    'getcap',
    'getln',
    'history',
    'integer',
    'jobs',
    'kill',
    'limit',
    'log',
    'noglob',
    'popd',
    'print',
    'pushd',
    'pushln',
    'rehash',
    'sched',
    'setcap',
    'setopt',
    'stat',
    'suspend',
    'ttyctl',
    'unfunction',
    'unhash',
    'unlimit',
    'unsetopt',
    'vared',
    'wait',
    'whence',
    'where',
    'which',
    'zcompile',
    'zformat',
    'zftp',
    'zle',
    'zmodload',
    'zparseopts',
    'zprof',
    'zpty',
    'zregexparse',
    'zsocket',
    'zstyle',
    'ztcp',
  ];
  const GNU_CORE_UTILS = [
    'chcon',
    'chgrp',
    'chown',
    'chmod',
    'cp',
    'dd',
    'df',
    'dir',
    'dircolors',
    'ln',
    'ls',
    'mkdir',
    'mkfifo',
    'mknod',
    'mktemp',
    'mv',
    'realpath',
    'rm',
    'rmdir',
    'shred',
    'sync',
    'touch',
    'truncate',
    'vdir',
    'b2sum',
    'base32',
    'base64',
    'cat',
    'cksum',
    'comm',
    'csplit',
    'cut',
    'expand',
    'fmt',
    'fold',
    'head',
    'join',
    'md5sum',
    'nl',
    'numfmt',
    'od',
    'paste',
    'ptx',
    'pr',
    'sha1sum',
    'sha224sum',
    'sha256sum',
    'sha384sum',
    'sha512sum',
    'shuf',
    'sort',
    'split',
    'sum',
    'tac',
    'tail',
    'tr',
    'tsort',
    'unexpand',
    'uniq',
    'wc',
    'arch',
    'basename',
    'chroot',
    'date',
    'dirname',
    'du',
    'echo',
    'env',
    'expr',
    'factor',
    'groups',
    'hostid',
    'id',
    'link',
    'logname',
    'nice',
    'nohup',
    'nproc',
    'pathchk',
    'pinky',
    'printenv',
    'printf',
    'pwd',
    'readlink',
    'runcon',
    'seq',
    'sleep',
    'stat',
    'stdbuf',
    'stty',
    'tee',
    'test',
    'timeout',
    'tty',
    'uname',
    'unlink',
    'uptime',
    'users',
    'who',
    'whoami',
    'yes',
  ];
  return {
    name: 'Bash',
    aliases: ['sh', 'zsh'],
    keywords: {
      $pattern: /\b[a-z][a-z0-9._-]+\b/,
      keyword: KEYWORDS,
      literal: LITERALS,
      built_in: [...SHELL_BUILT_INS, ...BASH_BUILT_INS, 'set', 'shopt', ...ZSH_BUILT_INS, ...GNU_CORE_UTILS],
    },
    contains: [
      KNOWN_SHEBANG,
      hljs.SHEBANG(),
      FUNCTION,
      ARITHMETIC,
      COMMENT,
      HERE_DOC,
      PATH_MODE,
      QUOTE_STRING,
      ESCAPED_QUOTE,
      APOS_STRING,
      ESCAPED_APOS,
      VAR,
    ],
  };
}
// node_modules/highlight.js/es/languages/c.js
/** @type LanguageFn */
function c(hljs) {
  const regex = hljs.regex;
  const C_LINE_COMMENT_MODE = hljs.COMMENT('//', '$', { contains: [{ begin: /\\\n/ }] });
  const DECLTYPE_AUTO_RE = 'decltype\\(auto\\)';
  const NAMESPACE_RE = '[a-zA-Z_]\\w*::';
  const FUNCTION_TYPE_RE =
    '(decltype\\(auto\\)|' +
    regex.optional(NAMESPACE_RE) +
    '[a-zA-Z_]\\w*' +
    regex.optional('<[^<>]+>') +
    ')';
  const TYPES = {
    className: 'type',
    variants: [
      { begin: '\\b[a-z\\d_]*_t\\b' },
      {
        match: regex.concat(
          /\batomic_/,
          regex.either(
            'bool',
            'char',
            'schar',
            'uchar',
            'short',
            'ushort',
            'int',
            'uint',
            'long',
            'ulong',
            'llong',
            'ullong',
            'char16_t',
            'char32_t',
            'wchar_t',
            'int_least8_t',
            'uint_least8_t',
            'int_least16_t',
            'uint_least16_t',
            'int_least32_t',
            'uint_least32_t',
            'int_least64_t',
            'uint_least64_t',
            'int_fast8_t',
            'uint_fast8_t',
            'int_fast16_t',
            'uint_fast16_t',
            'int_fast32_t',
            'uint_fast32_t',
            'int_fast64_t',
            'uint_fast64_t',
            'intptr_t',
            'uintptr_t',
            'size_t',
            'ptrdiff_t',
            'intmax_t',
            'uintmax_t',
          ),
          /\b/,
        ),
      },
    ],
  };
  const STRINGS = {
    className: 'string',
    variants: [
      {
        begin: '(u8?|U|L)?"',
        end: '"',
        illegal: '\\n',
        contains: [hljs.BACKSLASH_ESCAPE],
      },
      {
        begin: "(u8?|U|L)?'(\\\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4,8}|[0-7]{3}|\\S)|.)",
        end: "'",
        illegal: '.',
      },
      hljs.END_SAME_AS_BEGIN({
        begin: /(?:u8?|U|L)?R"([^()\\\s"]{0,16})\(/,
        end: /\)([^()\\\s"]{0,16})"/,
      }),
    ],
  };
  const NUMBERS = {
    className: 'number',
    variants: [
      { match: /\b(0b[01']+)/ },
      { match: /(-?)\b([\d']+(\.[\d']*)?|\.[\d']+)((ll|LL|l|L)(u|U)?|(u|U)(ll|LL|l|L)?|f|F|b|B)/ },
      {
        match:
          /(-?)\b(0[xX][a-fA-F0-9]+(?:'[a-fA-F0-9]+)*(?:\.[a-fA-F0-9]*(?:'[a-fA-F0-9]*)*)?(?:[pP][-+]?[0-9]+)?(l|L)?(u|U)?)/,
      },
      { match: /(-?)\b\d+(?:'\d+)*(?:\.\d*(?:'\d*)*)?(?:[eE][-+]?\d+)?/ },
    ],
    relevance: 0,
  };
  const PREPROCESSOR_INCLUDE = {
    scope: 'meta',
    begin: /#\s*include\b/,
    end: /$/,
    keywords: { keyword: 'include' },
    contains: [
      { begin: /\\\n/ },
      STRINGS,
      {
        scope: 'string',
        begin: /<.*?>/,
      },
      C_LINE_COMMENT_MODE,
      hljs.C_BLOCK_COMMENT_MODE,
    ],
  };
  const PREPROCESSOR = {
    className: 'meta',
    begin: /#\s*[a-z]+\b/,
    end: /$/,
    keywords: {
      keyword:
        'if else elif endif define undef warning error line pragma _Pragma ifdef ifndef elifdef elifndef include',
    },
    contains: [
      {
        begin: /\\\n/,
        relevance: 0,
      },
      hljs.inherit(STRINGS, { className: 'string' }),
      C_LINE_COMMENT_MODE,
      hljs.C_BLOCK_COMMENT_MODE,
    ],
  };
  const PREPROCESSORS = [PREPROCESSOR_INCLUDE, PREPROCESSOR];
  const TITLE_MODE = {
    className: 'title',
    begin: regex.optional(NAMESPACE_RE) + hljs.IDENT_RE,
    relevance: 0,
  };
  const FUNCTION_TITLE = regex.optional(NAMESPACE_RE) + hljs.IDENT_RE + '\\s*\\(';
  const KEYWORDS = {
    keyword: [
      'asm',
      'auto',
      'break',
      'case',
      'continue',
      'default',
      'do',
      'else',
      'enum',
      'extern',
      'for',
      'fortran',
      'goto',
      'if',
      'inline',
      'register',
      'restrict',
      'return',
      'sizeof',
      'typeof',
      'typeof_unqual',
      'struct',
      'switch',
      'typedef',
      'union',
      'volatile',
      'while',
      '_Alignas',
      '_Alignof',
      '_Atomic',
      '_Generic',
      '_Noreturn',
      '_Static_assert',
      '_Thread_local',
      'alignas',
      'alignof',
      'noreturn',
      'static_assert',
      'thread_local',
      '_Pragma',
    ],
    type: [
      'float',
      'double',
      'signed',
      'unsigned',
      'int',
      'short',
      'long',
      'char',
      'void',
      '_Bool',
      '_BitInt',
      '_Complex',
      '_Imaginary',
      '_Decimal32',
      '_Decimal64',
      '_Decimal96',
      '_Decimal128',
      '_Decimal64x',
      '_Decimal128x',
      '_Float16',
      '_Float32',
      '_Float64',
      '_Float128',
      '_Float32x',
      '_Float64x',
      '_Float128x',
      'const',
      'static',
      'constexpr',
      'complex',
      'bool',
      'imaginary',
    ],
    literal: 'true false NULL',
    built_in:
      'std string wstring cin cout cerr clog stdin stdout stderr stringstream istringstream ostringstream auto_ptr deque list queue stack vector map set pair bitset multiset multimap unordered_set unordered_map unordered_multiset unordered_multimap priority_queue make_pair array shared_ptr abort terminate abs acos asin atan2 atan calloc ceil cosh cos exit exp fabs floor fmod fprintf fputs free frexp fscanf future isalnum isalpha iscntrl isdigit isgraph islower isprint ispunct isspace isupper isxdigit tolower toupper labs ldexp log10 log malloc realloc memchr memcmp memcpy memset modf pow printf putchar puts scanf sinh sin snprintf sprintf sqrt sscanf strcat strchr strcmp strcpy strcspn strlen strncat strncmp strncpy strpbrk strrchr strspn strstr tanh tan vfprintf vprintf vsprintf endl initializer_list unique_ptr',
  };
  const EXPRESSION_CONTAINS = [
    ...PREPROCESSORS,
    TYPES,
    C_LINE_COMMENT_MODE,
    hljs.C_BLOCK_COMMENT_MODE,
    NUMBERS,
    STRINGS,
  ];
  const EXPRESSION_CONTEXT = {
    variants: [
      {
        begin: /=/,
        end: /;/,
      },
      {
        begin: /\(/,
        end: /\)/,
      },
      {
        beginKeywords: 'new throw return else',
        end: /;/,
      },
    ],
    keywords: KEYWORDS,
    contains: EXPRESSION_CONTAINS.concat([
      {
        begin: /\(/,
        end: /\)/,
        keywords: KEYWORDS,
        contains: EXPRESSION_CONTAINS.concat(['self']),
        relevance: 0,
      },
    ]),
    relevance: 0,
  };
  const FUNCTION_DECLARATION = {
    begin: '(' + FUNCTION_TYPE_RE + '[\\*&\\s]+){1,12}' + FUNCTION_TITLE,
    returnBegin: true,
    end: /[{;=]/,
    excludeEnd: true,
    keywords: KEYWORDS,
    illegal: /[^\w\s\*&:<>.]/,
    contains: [
      {
        begin: DECLTYPE_AUTO_RE,
        keywords: KEYWORDS,
        relevance: 0,
      },
      {
        begin: FUNCTION_TITLE,
        returnBegin: true,
        contains: [hljs.inherit(TITLE_MODE, { className: 'title.function' })],
        relevance: 0,
      },
      {
        relevance: 0,
        match: /,/,
      },
      {
        className: 'params',
        begin: /\(/,
        end: /\)/,
        keywords: KEYWORDS,
        relevance: 0,
        contains: [
          C_LINE_COMMENT_MODE,
          hljs.C_BLOCK_COMMENT_MODE,
          STRINGS,
          NUMBERS,
          TYPES,
          {
            begin: /\(/,
            end: /\)/,
            keywords: KEYWORDS,
            relevance: 0,
            contains: ['self', C_LINE_COMMENT_MODE, hljs.C_BLOCK_COMMENT_MODE, STRINGS, NUMBERS, TYPES],
          },
        ],
      },
      TYPES,
      C_LINE_COMMENT_MODE,
      hljs.C_BLOCK_COMMENT_MODE,
      ...PREPROCESSORS,
    ],
  };
  return {
    name: 'C',
    aliases: ['h'],
    keywords: KEYWORDS,
    disableAutodetect: true,
    illegal: '</',
    contains: [].concat(EXPRESSION_CONTEXT, FUNCTION_DECLARATION, EXPRESSION_CONTAINS, [
      ...PREPROCESSORS,
      {
        begin: hljs.IDENT_RE + '::',
        keywords: KEYWORDS,
      },
      {
        className: 'class',
        beginKeywords: 'enum class struct union',
        end: /[{;:<>=]/,
        contains: [{ beginKeywords: 'final class struct' }, hljs.TITLE_MODE],
      },
    ]),
    exports: {
      preprocessor: PREPROCESSOR,
      strings: STRINGS,
      keywords: KEYWORDS,
    },
  };
}
// node_modules/highlight.js/es/languages/cpp.js
/** @type LanguageFn */
function cpp(hljs) {
  const regex = hljs.regex;
  const C_LINE_COMMENT_MODE = hljs.COMMENT('//', '$', { contains: [{ begin: /\\\n/ }] });
  const DECLTYPE_AUTO_RE = 'decltype\\(auto\\)';
  const NAMESPACE_RE = '[a-zA-Z_]\\w*::';
  const FUNCTION_TYPE_RE =
    '(?!struct)(decltype\\(auto\\)|' +
    regex.optional(NAMESPACE_RE) +
    '[a-zA-Z_]\\w*' +
    regex.optional('<[^<>]+>') +
    ')';
  const CPP_PRIMITIVE_TYPES = {
    className: 'type',
    begin: '\\b[a-z\\d_]*_t\\b',
  };
  const STRINGS = {
    className: 'string',
    variants: [
      {
        begin: '(u8?|U|L)?"',
        end: '"',
        illegal: '\\n',
        contains: [hljs.BACKSLASH_ESCAPE],
      },
      {
        begin: "(u8?|U|L)?'(\\\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4,8}|[0-7]{3}|\\S)|.)",
        end: "'",
        illegal: '.',
      },
      hljs.END_SAME_AS_BEGIN({
        begin: /(?:u8?|U|L)?R"([^()\\\s"]{0,16})\(/,
        end: /\)([^()\\\s"]{0,16})"/,
      }),
    ],
  };
  const NUMBERS = {
    className: 'number',
    variants: [
      {
        begin:
          "[+-]?(?:(?:\\b[0-9](?:'?[0-9])*\\.(?:[0-9](?:'?[0-9])*)?|\\.[0-9](?:'?[0-9])*)(?:[Ee][+-]?[0-9](?:'?[0-9])*)?|\\b[0-9](?:'?[0-9])*[Ee][+-]?[0-9](?:'?[0-9])*|\\b0[Xx](?:[0-9A-Fa-f](?:'?[0-9A-Fa-f])*(?:\\.(?:[0-9A-Fa-f](?:'?[0-9A-Fa-f])*)?)?|\\.[0-9A-Fa-f](?:'?[0-9A-Fa-f])*)[Pp][+-]?[0-9](?:'?[0-9])*)(?:[Ff](?:16|32|64|128)?|(BF|bf)16|[Ll]|)",
      },
      {
        begin:
          "[+-]?\\b(?:0[Bb][01](?:'?[01])*|0[Xx][0-9A-Fa-f](?:'?[0-9A-Fa-f])*|0(?:'?[0-7])*|[1-9](?:'?[0-9])*)(?:[Uu](?:LL?|ll?)|[Uu][Zz]?|(?:LL?|ll?)[Uu]?|[Zz][Uu]|)",
      },
    ],
    relevance: 0,
  };
  const PREPROCESSORS = [
    {
      scope: 'meta',
      begin: /#\s*include\b/,
      end: /$/,
      keywords: { keyword: 'include' },
      contains: [
        { begin: /\\\n/ },
        STRINGS,
        {
          scope: 'string',
          begin: /<.*?>/,
        },
        C_LINE_COMMENT_MODE,
        hljs.C_BLOCK_COMMENT_MODE,
      ],
    },
    {
      className: 'meta',
      begin: /#\s*[a-z]+\b/,
      end: /$/,
      keywords: {
        keyword: 'if else elif endif define undef warning error line pragma _Pragma ifdef ifndef include',
      },
      contains: [
        {
          begin: /\\\n/,
          relevance: 0,
        },
        hljs.inherit(STRINGS, { className: 'string' }),
        C_LINE_COMMENT_MODE,
        hljs.C_BLOCK_COMMENT_MODE,
      ],
    },
  ];
  const TITLE_MODE = {
    className: 'title',
    begin: regex.optional(NAMESPACE_RE) + hljs.IDENT_RE,
    relevance: 0,
  };
  const FUNCTION_TITLE = regex.optional(NAMESPACE_RE) + hljs.IDENT_RE + '\\s*\\(';
  const RESERVED_KEYWORDS = [
    'alignas',
    'alignof',
    'and',
    'and_eq',
    'asm',
    'atomic_cancel',
    'atomic_commit',
    'atomic_noexcept',
    'auto',
    'bitand',
    'bitor',
    'break',
    'case',
    'catch',
    'class',
    'co_await',
    'co_return',
    'co_yield',
    'compl',
    'concept',
    'const_cast|10',
    'consteval',
    'constexpr',
    'constinit',
    'continue',
    'decltype',
    'default',
    'delete',
    'do',
    'dynamic_cast|10',
    'else',
    'enum',
    'explicit',
    'export',
    'extern',
    'false',
    'final',
    'for',
    'friend',
    'goto',
    'if',
    'import',
    'inline',
    'module',
    'mutable',
    'namespace',
    'new',
    'noexcept',
    'not',
    'not_eq',
    'nullptr',
    'operator',
    'or',
    'or_eq',
    'override',
    'private',
    'protected',
    'public',
    'reflexpr',
    'register',
    'reinterpret_cast|10',
    'requires',
    'return',
    'sizeof',
    'static_assert',
    'static_cast|10',
    'struct',
    'switch',
    'synchronized',
    'template',
    'this',
    'thread_local',
    'throw',
    'transaction_safe',
    'transaction_safe_dynamic',
    'true',
    'try',
    'typedef',
    'typeid',
    'typename',
    'union',
    'using',
    'virtual',
    'volatile',
    'while',
    'xor',
    'xor_eq',
  ];
  const RESERVED_TYPES = [
    'bool',
    'char',
    'char16_t',
    'char32_t',
    'char8_t',
    'double',
    'float',
    'int',
    'long',
    'short',
    'void',
    'wchar_t',
    'unsigned',
    'signed',
    'const',
    'static',
  ];
  const TYPE_HINTS = [
    'any',
    'auto_ptr',
    'barrier',
    'binary_semaphore',
    'bitset',
    'complex',
    'condition_variable',
    'condition_variable_any',
    'counting_semaphore',
    'deque',
    'false_type',
    'flat_map',
    'flat_set',
    'future',
    'imaginary',
    'initializer_list',
    'istringstream',
    'jthread',
    'latch',
    'lock_guard',
    'multimap',
    'multiset',
    'mutex',
    'optional',
    'ostringstream',
    'packaged_task',
    'pair',
    'promise',
    'priority_queue',
    'queue',
    'recursive_mutex',
    'recursive_timed_mutex',
    'scoped_lock',
    'set',
    'shared_future',
    'shared_lock',
    'shared_mutex',
    'shared_timed_mutex',
    'shared_ptr',
    'stack',
    'string_view',
    'stringstream',
    'timed_mutex',
    'thread',
    'true_type',
    'tuple',
    'unique_lock',
    'unique_ptr',
    'unordered_map',
    'unordered_multimap',
    'unordered_multiset',
    'unordered_set',
    'variant',
    'vector',
    'weak_ptr',
    'wstring',
    'wstring_view',
  ];
  const FUNCTION_HINTS = [
    'abort',
    'abs',
    'acos',
    'apply',
    'as_const',
    'asin',
    'atan',
    'atan2',
    'calloc',
    'ceil',
    'cerr',
    'cin',
    'clog',
    'cos',
    'cosh',
    'cout',
    'declval',
    'endl',
    'exchange',
    'exit',
    'exp',
    'fabs',
    'floor',
    'fmod',
    'forward',
    'fprintf',
    'fputs',
    'free',
    'frexp',
    'fscanf',
    'future',
    'invoke',
    'isalnum',
    'isalpha',
    'iscntrl',
    'isdigit',
    'isgraph',
    'islower',
    'isprint',
    'ispunct',
    'isspace',
    'isupper',
    'isxdigit',
    'labs',
    'launder',
    'ldexp',
    'log',
    'log10',
    'make_pair',
    'make_shared',
    'make_shared_for_overwrite',
    'make_tuple',
    'make_unique',
    'malloc',
    'memchr',
    'memcmp',
    'memcpy',
    'memset',
    'modf',
    'move',
    'pow',
    'printf',
    'putchar',
    'puts',
    'realloc',
    'scanf',
    'sin',
    'sinh',
    'snprintf',
    'sprintf',
    'sqrt',
    'sscanf',
    'std',
    'stderr',
    'stdin',
    'stdout',
    'strcat',
    'strchr',
    'strcmp',
    'strcpy',
    'strcspn',
    'strlen',
    'strncat',
    'strncmp',
    'strncpy',
    'strpbrk',
    'strrchr',
    'strspn',
    'strstr',
    'swap',
    'tan',
    'tanh',
    'terminate',
    'to_underlying',
    'tolower',
    'toupper',
    'vfprintf',
    'visit',
    'vprintf',
    'vsprintf',
  ];
  const CPP_KEYWORDS = {
    type: RESERVED_TYPES,
    keyword: RESERVED_KEYWORDS,
    literal: ['NULL', 'false', 'nullopt', 'nullptr', 'true'],
    built_in: ['_Pragma'],
    _type_hints: TYPE_HINTS,
  };
  const FUNCTION_DISPATCH = {
    className: 'function.dispatch',
    relevance: 0,
    keywords: { _hint: FUNCTION_HINTS },
    begin: regex.concat(
      /\b/,
      `(?!${RESERVED_KEYWORDS.join('|')})`,
      hljs.IDENT_RE,
      regex.lookahead(/(<[^<>]+>|)\s*\(/),
    ),
  };
  const EXPRESSION_CONTAINS = [
    FUNCTION_DISPATCH,
    ...PREPROCESSORS,
    CPP_PRIMITIVE_TYPES,
    C_LINE_COMMENT_MODE,
    hljs.C_BLOCK_COMMENT_MODE,
    NUMBERS,
    STRINGS,
  ];
  const EXPRESSION_CONTEXT = {
    variants: [
      {
        begin: /=/,
        end: /;/,
      },
      {
        begin: /\(/,
        end: /\)/,
      },
      {
        beginKeywords: 'new throw return else',
        end: /;/,
      },
    ],
    keywords: CPP_KEYWORDS,
    contains: EXPRESSION_CONTAINS.concat([
      {
        begin: /\(/,
        end: /\)/,
        keywords: CPP_KEYWORDS,
        contains: EXPRESSION_CONTAINS.concat(['self']),
        relevance: 0,
      },
    ]),
    relevance: 0,
  };
  const FUNCTION_DECLARATION = {
    className: 'function',
    begin: '(' + FUNCTION_TYPE_RE + '[\\*&\\s]+){1,12}' + FUNCTION_TITLE,
    returnBegin: true,
    end: /[{;=]/,
    excludeEnd: true,
    keywords: CPP_KEYWORDS,
    illegal: /[^\w\s\*&:<>.]/,
    contains: [
      {
        begin: DECLTYPE_AUTO_RE,
        keywords: CPP_KEYWORDS,
        relevance: 0,
      },
      {
        begin: FUNCTION_TITLE,
        returnBegin: true,
        contains: [TITLE_MODE],
        relevance: 0,
      },
      {
        begin: /::/,
        relevance: 0,
      },
      {
        begin: /:/,
        endsWithParent: true,
        contains: [STRINGS, NUMBERS],
      },
      {
        relevance: 0,
        match: /,/,
      },
      {
        className: 'params',
        begin: /\(/,
        end: /\)/,
        keywords: CPP_KEYWORDS,
        relevance: 0,
        contains: [
          C_LINE_COMMENT_MODE,
          hljs.C_BLOCK_COMMENT_MODE,
          STRINGS,
          NUMBERS,
          CPP_PRIMITIVE_TYPES,
          {
            begin: /\(/,
            end: /\)/,
            keywords: CPP_KEYWORDS,
            relevance: 0,
            contains: [
              'self',
              C_LINE_COMMENT_MODE,
              hljs.C_BLOCK_COMMENT_MODE,
              STRINGS,
              NUMBERS,
              CPP_PRIMITIVE_TYPES,
            ],
          },
        ],
      },
      CPP_PRIMITIVE_TYPES,
      C_LINE_COMMENT_MODE,
      hljs.C_BLOCK_COMMENT_MODE,
      ...PREPROCESSORS,
    ],
  };
  return {
    name: 'C++',
    aliases: ['cc', 'c++', 'h++', 'hpp', 'hh', 'hxx', 'cxx'],
    keywords: CPP_KEYWORDS,
    illegal: '</',
    classNameAliases: { 'function.dispatch': 'built_in' },
    contains: [].concat(EXPRESSION_CONTEXT, FUNCTION_DECLARATION, FUNCTION_DISPATCH, EXPRESSION_CONTAINS, [
      ...PREPROCESSORS,
      {
        begin:
          '\\b(deque|list|queue|priority_queue|pair|stack|vector|map|set|bitset|multiset|multimap|unordered_map|unordered_set|unordered_multiset|unordered_multimap|array|tuple|optional|variant|function|flat_map|flat_set)\\s*<(?!<)',
        end: '>',
        keywords: CPP_KEYWORDS,
        contains: ['self', CPP_PRIMITIVE_TYPES],
      },
      {
        begin: hljs.IDENT_RE + '::',
        keywords: CPP_KEYWORDS,
      },
      {
        match: [/\b(?:enum(?:\s+(?:class|struct))?|class|struct|union)/, /\s+/, /\w+/],
        className: {
          1: 'keyword',
          3: 'title.class',
        },
      },
    ]),
  };
}
// node_modules/highlight.js/es/languages/css.js
var MODES = (hljs) => {
  return {
    IMPORTANT: {
      scope: 'meta',
      begin: '!important',
    },
    BLOCK_COMMENT: hljs.C_BLOCK_COMMENT_MODE,
    HEXCOLOR: {
      scope: 'number',
      begin: /#(([0-9a-fA-F]{3,4})|(([0-9a-fA-F]{2}){3,4}))\b/,
    },
    UNICODE_RANGE: {
      scope: 'number',
      begin: /\b[Uu]\+[0-9A-Fa-f][0-9A-Fa-f?]{0,5}(-[0-9A-Fa-f][0-9A-Fa-f]{0,5})?/,
    },
    FUNCTION_DISPATCH: {
      className: 'built_in',
      begin: /[\w-]+(?=\()/,
    },
    ATTRIBUTE_SELECTOR_MODE: {
      scope: 'selector-attr',
      begin: /\[/,
      end: /\]/,
      illegal: '$',
      contains: [hljs.APOS_STRING_MODE, hljs.QUOTE_STRING_MODE],
    },
    CSS_NUMBER_MODE: {
      scope: 'number',
      begin:
        hljs.NUMBER_RE +
        '(%|em|ex|ch|rem|vw|vh|vmin|vmax|cm|mm|in|pt|pc|px|deg|grad|rad|turn|s|ms|Hz|kHz|dpi|dpcm|dppx)?',
      relevance: 0,
    },
    CSS_VARIABLE: {
      className: 'attr',
      begin: /--[A-Za-z_][A-Za-z0-9_-]*/,
    },
  };
};
var HTML_TAGS = [
  'a',
  'abbr',
  'address',
  'article',
  'aside',
  'audio',
  'b',
  'blockquote',
  'body',
  'button',
  'canvas',
  'caption',
  'cite',
  'code',
  'dd',
  'del',
  'details',
  'dfn',
  'div',
  'dl',
  'dt',
  'em',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'html',
  'i',
  'iframe',
  'img',
  'input',
  'ins',
  'kbd',
  'label',
  'legend',
  'li',
  'main',
  'mark',
  'menu',
  'nav',
  'object',
  'ol',
  'optgroup',
  'option',
  'p',
  'picture',
  'q',
  'quote',
  'samp',
  'section',
  'select',
  'source',
  'span',
  'strong',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'textarea',
  'tfoot',
  'th',
  'thead',
  'time',
  'tr',
  'ul',
  'var',
  'video',
];
var SVG_TAGS = [
  'defs',
  'g',
  'marker',
  'mask',
  'pattern',
  'svg',
  'switch',
  'symbol',
  'feBlend',
  'feColorMatrix',
  'feComponentTransfer',
  'feComposite',
  'feConvolveMatrix',
  'feDiffuseLighting',
  'feDisplacementMap',
  'feFlood',
  'feGaussianBlur',
  'feImage',
  'feMerge',
  'feMorphology',
  'feOffset',
  'feSpecularLighting',
  'feTile',
  'feTurbulence',
  'linearGradient',
  'radialGradient',
  'stop',
  'circle',
  'ellipse',
  'image',
  'line',
  'path',
  'polygon',
  'polyline',
  'rect',
  'text',
  'use',
  'textPath',
  'tspan',
  'foreignObject',
  'clipPath',
];
var TAGS = [...HTML_TAGS, ...SVG_TAGS];
var MEDIA_FEATURES = [
  'any-hover',
  'any-pointer',
  'aspect-ratio',
  'color',
  'color-gamut',
  'color-index',
  'device-aspect-ratio',
  'device-height',
  'device-width',
  'display-mode',
  'forced-colors',
  'grid',
  'height',
  'hover',
  'inverted-colors',
  'monochrome',
  'orientation',
  'overflow-block',
  'overflow-inline',
  'pointer',
  'prefers-color-scheme',
  'prefers-contrast',
  'prefers-reduced-motion',
  'prefers-reduced-transparency',
  'resolution',
  'scan',
  'scripting',
  'update',
  'width',
  'min-width',
  'max-width',
  'min-height',
  'max-height',
]
  .sort()
  .reverse();
var PSEUDO_CLASSES = [
  'active',
  'any-link',
  'blank',
  'checked',
  'current',
  'default',
  'defined',
  'dir',
  'disabled',
  'drop',
  'empty',
  'enabled',
  'first',
  'first-child',
  'first-of-type',
  'fullscreen',
  'future',
  'focus',
  'focus-visible',
  'focus-within',
  'has',
  'host',
  'host-context',
  'hover',
  'indeterminate',
  'in-range',
  'invalid',
  'is',
  'lang',
  'last-child',
  'last-of-type',
  'left',
  'link',
  'local-link',
  'not',
  'nth-child',
  'nth-col',
  'nth-last-child',
  'nth-last-col',
  'nth-last-of-type',
  'nth-of-type',
  'only-child',
  'only-of-type',
  'optional',
  'out-of-range',
  'past',
  'placeholder-shown',
  'read-only',
  'read-write',
  'required',
  'right',
  'root',
  'scope',
  'target',
  'target-within',
  'user-invalid',
  'valid',
  'visited',
  'where',
]
  .sort()
  .reverse();
var PSEUDO_ELEMENTS = [
  'after',
  'backdrop',
  'before',
  'cue',
  'cue-region',
  'first-letter',
  'first-line',
  'grammar-error',
  'marker',
  'part',
  'placeholder',
  'selection',
  'slotted',
  'spelling-error',
]
  .sort()
  .reverse();
var ATTRIBUTES = [
  'accent-color',
  'align-content',
  'align-items',
  'align-self',
  'alignment-baseline',
  'all',
  'anchor-name',
  'animation',
  'animation-composition',
  'animation-delay',
  'animation-direction',
  'animation-duration',
  'animation-fill-mode',
  'animation-iteration-count',
  'animation-name',
  'animation-play-state',
  'animation-range',
  'animation-range-end',
  'animation-range-start',
  'animation-timeline',
  'animation-timing-function',
  'appearance',
  'aspect-ratio',
  'backdrop-filter',
  'backface-visibility',
  'background',
  'background-attachment',
  'background-blend-mode',
  'background-clip',
  'background-color',
  'background-image',
  'background-origin',
  'background-position',
  'background-position-x',
  'background-position-y',
  'background-repeat',
  'background-size',
  'baseline-shift',
  'block-size',
  'border',
  'border-block',
  'border-block-color',
  'border-block-end',
  'border-block-end-color',
  'border-block-end-style',
  'border-block-end-width',
  'border-block-start',
  'border-block-start-color',
  'border-block-start-style',
  'border-block-start-width',
  'border-block-style',
  'border-block-width',
  'border-bottom',
  'border-bottom-color',
  'border-bottom-left-radius',
  'border-bottom-right-radius',
  'border-bottom-style',
  'border-bottom-width',
  'border-collapse',
  'border-color',
  'border-end-end-radius',
  'border-end-start-radius',
  'border-image',
  'border-image-outset',
  'border-image-repeat',
  'border-image-slice',
  'border-image-source',
  'border-image-width',
  'border-inline',
  'border-inline-color',
  'border-inline-end',
  'border-inline-end-color',
  'border-inline-end-style',
  'border-inline-end-width',
  'border-inline-start',
  'border-inline-start-color',
  'border-inline-start-style',
  'border-inline-start-width',
  'border-inline-style',
  'border-inline-width',
  'border-left',
  'border-left-color',
  'border-left-style',
  'border-left-width',
  'border-radius',
  'border-right',
  'border-right-color',
  'border-right-style',
  'border-right-width',
  'border-spacing',
  'border-start-end-radius',
  'border-start-start-radius',
  'border-style',
  'border-top',
  'border-top-color',
  'border-top-left-radius',
  'border-top-right-radius',
  'border-top-style',
  'border-top-width',
  'border-width',
  'bottom',
  'box-align',
  'box-decoration-break',
  'box-direction',
  'box-flex',
  'box-flex-group',
  'box-lines',
  'box-ordinal-group',
  'box-orient',
  'box-pack',
  'box-shadow',
  'box-sizing',
  'break-after',
  'break-before',
  'break-inside',
  'caption-side',
  'caret-color',
  'clear',
  'clip',
  'clip-path',
  'clip-rule',
  'color',
  'color-interpolation',
  'color-interpolation-filters',
  'color-profile',
  'color-rendering',
  'color-scheme',
  'column-count',
  'column-fill',
  'column-gap',
  'column-rule',
  'column-rule-color',
  'column-rule-style',
  'column-rule-width',
  'column-span',
  'column-width',
  'columns',
  'contain',
  'contain-intrinsic-block-size',
  'contain-intrinsic-height',
  'contain-intrinsic-inline-size',
  'contain-intrinsic-size',
  'contain-intrinsic-width',
  'container',
  'container-name',
  'container-type',
  'content',
  'content-visibility',
  'corner-bottom-left-shape',
  'corner-bottom-right-shape',
  'corner-shape',
  'corner-top-left-shape',
  'corner-top-right-shape',
  'counter-increment',
  'counter-reset',
  'counter-set',
  'cue',
  'cue-after',
  'cue-before',
  'cursor',
  'cx',
  'cy',
  'direction',
  'display',
  'dominant-baseline',
  'empty-cells',
  'enable-background',
  'field-sizing',
  'fill',
  'fill-opacity',
  'fill-rule',
  'filter',
  'flex',
  'flex-basis',
  'flex-direction',
  'flex-flow',
  'flex-grow',
  'flex-shrink',
  'flex-wrap',
  'float',
  'flood-color',
  'flood-opacity',
  'flow',
  'font',
  'font-display',
  'font-family',
  'font-feature-settings',
  'font-kerning',
  'font-language-override',
  'font-optical-sizing',
  'font-palette',
  'font-size',
  'font-size-adjust',
  'font-smooth',
  'font-smoothing',
  'font-stretch',
  'font-style',
  'font-synthesis',
  'font-synthesis-position',
  'font-synthesis-small-caps',
  'font-synthesis-style',
  'font-synthesis-weight',
  'font-variant',
  'font-variant-alternates',
  'font-variant-caps',
  'font-variant-east-asian',
  'font-variant-emoji',
  'font-variant-ligatures',
  'font-variant-numeric',
  'font-variant-position',
  'font-variation-settings',
  'font-weight',
  'forced-color-adjust',
  'gap',
  'glyph-orientation-horizontal',
  'glyph-orientation-vertical',
  'grid',
  'grid-area',
  'grid-auto-columns',
  'grid-auto-flow',
  'grid-auto-rows',
  'grid-column',
  'grid-column-end',
  'grid-column-start',
  'grid-gap',
  'grid-row',
  'grid-row-end',
  'grid-row-start',
  'grid-template',
  'grid-template-areas',
  'grid-template-columns',
  'grid-template-rows',
  'hanging-punctuation',
  'height',
  'hyphenate-character',
  'hyphenate-limit-chars',
  'hyphens',
  'icon',
  'image-orientation',
  'image-rendering',
  'image-resolution',
  'ime-mode',
  'initial-letter',
  'initial-letter-align',
  'inline-size',
  'inset',
  'inset-area',
  'inset-block',
  'inset-block-end',
  'inset-block-start',
  'inset-inline',
  'inset-inline-end',
  'inset-inline-start',
  'isolation',
  'justify-content',
  'justify-items',
  'justify-self',
  'kerning',
  'left',
  'letter-spacing',
  'lighting-color',
  'line-break',
  'line-height',
  'line-height-step',
  'list-style',
  'list-style-image',
  'list-style-position',
  'list-style-type',
  'margin',
  'margin-block',
  'margin-block-end',
  'margin-block-start',
  'margin-bottom',
  'margin-inline',
  'margin-inline-end',
  'margin-inline-start',
  'margin-left',
  'margin-right',
  'margin-top',
  'margin-trim',
  'marker',
  'marker-end',
  'marker-mid',
  'marker-start',
  'marks',
  'mask',
  'mask-border',
  'mask-border-mode',
  'mask-border-outset',
  'mask-border-repeat',
  'mask-border-slice',
  'mask-border-source',
  'mask-border-width',
  'mask-clip',
  'mask-composite',
  'mask-image',
  'mask-mode',
  'mask-origin',
  'mask-position',
  'mask-repeat',
  'mask-size',
  'mask-type',
  'masonry-auto-flow',
  'math-depth',
  'math-shift',
  'math-style',
  'max-block-size',
  'max-height',
  'max-inline-size',
  'max-width',
  'min-block-size',
  'min-height',
  'min-inline-size',
  'min-width',
  'mix-blend-mode',
  'nav-down',
  'nav-index',
  'nav-left',
  'nav-right',
  'nav-up',
  'none',
  'normal',
  'object-fit',
  'object-position',
  'offset',
  'offset-anchor',
  'offset-distance',
  'offset-path',
  'offset-position',
  'offset-rotate',
  'opacity',
  'order',
  'orphans',
  'outline',
  'outline-color',
  'outline-offset',
  'outline-style',
  'outline-width',
  'overflow',
  'overflow-anchor',
  'overflow-block',
  'overflow-clip-margin',
  'overflow-inline',
  'overflow-wrap',
  'overflow-x',
  'overflow-y',
  'overlay',
  'overscroll-behavior',
  'overscroll-behavior-block',
  'overscroll-behavior-inline',
  'overscroll-behavior-x',
  'overscroll-behavior-y',
  'padding',
  'padding-block',
  'padding-block-end',
  'padding-block-start',
  'padding-bottom',
  'padding-inline',
  'padding-inline-end',
  'padding-inline-start',
  'padding-left',
  'padding-right',
  'padding-top',
  'page',
  'page-break-after',
  'page-break-before',
  'page-break-inside',
  'paint-order',
  'pause',
  'pause-after',
  'pause-before',
  'perspective',
  'perspective-origin',
  'place-content',
  'place-items',
  'place-self',
  'pointer-events',
  'position',
  'position-anchor',
  'position-visibility',
  'print-color-adjust',
  'quotes',
  'r',
  'resize',
  'rest',
  'rest-after',
  'rest-before',
  'right',
  'rotate',
  'row-gap',
  'ruby-align',
  'ruby-position',
  'scale',
  'scroll-behavior',
  'scroll-margin',
  'scroll-margin-block',
  'scroll-margin-block-end',
  'scroll-margin-block-start',
  'scroll-margin-bottom',
  'scroll-margin-inline',
  'scroll-margin-inline-end',
  'scroll-margin-inline-start',
  'scroll-margin-left',
  'scroll-margin-right',
  'scroll-margin-top',
  'scroll-padding',
  'scroll-padding-block',
  'scroll-padding-block-end',
  'scroll-padding-block-start',
  'scroll-padding-bottom',
  'scroll-padding-inline',
  'scroll-padding-inline-end',
  'scroll-padding-inline-start',
  'scroll-padding-left',
  'scroll-padding-right',
  'scroll-padding-top',
  'scroll-snap-align',
  'scroll-snap-stop',
  'scroll-snap-type',
  'scroll-timeline',
  'scroll-timeline-axis',
  'scroll-timeline-name',
  'scrollbar-color',
  'scrollbar-gutter',
  'scrollbar-width',
  'shape-image-threshold',
  'shape-margin',
  'shape-outside',
  'shape-rendering',
  'speak',
  'speak-as',
  'src',
  'stop-color',
  'stop-opacity',
  'stroke',
  'stroke-dasharray',
  'stroke-dashoffset',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-opacity',
  'stroke-width',
  'tab-size',
  'table-layout',
  'text-align',
  'text-align-all',
  'text-align-last',
  'text-anchor',
  'text-combine-upright',
  'text-decoration',
  'text-decoration-color',
  'text-decoration-line',
  'text-decoration-skip',
  'text-decoration-skip-ink',
  'text-decoration-style',
  'text-decoration-thickness',
  'text-emphasis',
  'text-emphasis-color',
  'text-emphasis-position',
  'text-emphasis-style',
  'text-indent',
  'text-justify',
  'text-orientation',
  'text-overflow',
  'text-rendering',
  'text-shadow',
  'text-size-adjust',
  'text-transform',
  'text-underline-offset',
  'text-underline-position',
  'text-wrap',
  'text-wrap-mode',
  'text-wrap-style',
  'timeline-scope',
  'top',
  'touch-action',
  'transform',
  'transform-box',
  'transform-origin',
  'transform-style',
  'transition',
  'transition-behavior',
  'transition-delay',
  'transition-duration',
  'transition-property',
  'transition-timing-function',
  'translate',
  'unicode-bidi',
  'unicode-range',
  'user-modify',
  'user-select',
  'vector-effect',
  'vertical-align',
  'view-timeline',
  'view-timeline-axis',
  'view-timeline-inset',
  'view-timeline-name',
  'view-transition-name',
  'visibility',
  'voice-balance',
  'voice-duration',
  'voice-family',
  'voice-pitch',
  'voice-range',
  'voice-rate',
  'voice-stress',
  'voice-volume',
  'white-space',
  'white-space-collapse',
  'widows',
  'width',
  'will-change',
  'word-break',
  'word-spacing',
  'word-wrap',
  'writing-mode',
  'x',
  'y',
  'z-index',
  'zoom',
]
  .sort()
  .reverse();
/** @type LanguageFn */
function css(hljs) {
  const regex = hljs.regex;
  const modes = MODES(hljs);
  const VENDOR_PREFIX = { begin: /-(webkit|moz|ms|o)-(?=[a-z])/ };
  const AT_MODIFIERS = 'and or not only';
  const AT_PROPERTY_RE = /@-?\w[\w]*(-\w+)*/;
  const STRINGS = [hljs.APOS_STRING_MODE, hljs.QUOTE_STRING_MODE];
  return {
    name: 'CSS',
    case_insensitive: true,
    illegal: /[=|'\$]/,
    keywords: { keyframePosition: 'from to' },
    classNameAliases: { keyframePosition: 'selector-tag' },
    contains: [
      modes.BLOCK_COMMENT,
      VENDOR_PREFIX,
      modes.CSS_NUMBER_MODE,
      {
        className: 'selector-id',
        begin: /#[A-Za-z0-9_-]+/,
        relevance: 0,
      },
      {
        className: 'selector-class',
        begin: '\\.[a-zA-Z-][a-zA-Z0-9_-]*',
        relevance: 0,
      },
      modes.ATTRIBUTE_SELECTOR_MODE,
      {
        className: 'selector-pseudo',
        variants: [
          { begin: ':(' + PSEUDO_CLASSES.join('|') + ')' },
          { begin: ':(:)?(' + PSEUDO_ELEMENTS.join('|') + ')' },
        ],
      },
      modes.CSS_VARIABLE,
      {
        className: 'attribute',
        begin: '\\b(' + ATTRIBUTES.join('|') + ')\\b',
      },
      {
        begin: /:/,
        end: /[;}{]/,
        contains: [
          modes.BLOCK_COMMENT,
          modes.HEXCOLOR,
          modes.IMPORTANT,
          modes.CSS_NUMBER_MODE,
          modes.UNICODE_RANGE,
          ...STRINGS,
          {
            begin: /(url|data-uri)\(/,
            end: /\)/,
            relevance: 0,
            keywords: { built_in: 'url data-uri' },
            contains: [
              ...STRINGS,
              {
                className: 'string',
                begin: /[^)]/,
                endsWithParent: true,
                excludeEnd: true,
              },
            ],
          },
          modes.FUNCTION_DISPATCH,
        ],
      },
      {
        begin: regex.lookahead(/@/),
        end: '[{;]',
        relevance: 0,
        illegal: /:/,
        contains: [
          {
            className: 'keyword',
            begin: AT_PROPERTY_RE,
          },
          {
            begin: /\s/,
            endsWithParent: true,
            excludeEnd: true,
            relevance: 0,
            keywords: {
              $pattern: /[a-z-]+/,
              keyword: AT_MODIFIERS,
              attribute: MEDIA_FEATURES.join(' '),
            },
            contains: [
              {
                begin: /[a-z-]+(?=:)/,
                className: 'attribute',
              },
              ...STRINGS,
              modes.CSS_NUMBER_MODE,
            ],
          },
        ],
      },
      {
        className: 'selector-tag',
        begin: '\\b(' + TAGS.join('|') + ')\\b',
      },
    ],
  };
}
// node_modules/highlight.js/es/languages/diff.js
/** @type LanguageFn */
function diff(hljs) {
  const regex = hljs.regex;
  return {
    name: 'Diff',
    aliases: ['patch'],
    contains: [
      {
        className: 'meta',
        relevance: 10,
        match: regex.either(
          /^@@ +-\d+,\d+ +\+\d+,\d+ +@@/,
          /^@@ +-\d+ +\+\d+,\d+ +@@/,
          /^@@ +-\d+,\d+ +\+\d+ +@@/,
          /^@@ +-\d+ +\+\d+ +@@/,
          /^\*\*\* +\d+,\d+ +\*\*\*\*$/,
          /^--- +\d+,\d+ +----$/,
        ),
      },
      {
        className: 'comment',
        variants: [
          {
            begin: regex.either(/Index: /, /^index/, /={3,}/, /^-{3}/, /^\*{3} /, /^\+{3}/, /^diff --git/),
            end: /$/,
          },
          { match: /^\*{15}$/ },
        ],
      },
      {
        className: 'addition',
        begin: /^\+/,
        end: /$/,
      },
      {
        className: 'deletion',
        begin: /^-/,
        end: /$/,
      },
      {
        className: 'addition',
        begin: /^!/,
        end: /$/,
      },
    ],
  };
}
// node_modules/highlight.js/es/languages/dockerfile.js
/** @type LanguageFn */
function dockerfile(hljs) {
  return {
    name: 'Dockerfile',
    aliases: ['docker'],
    case_insensitive: true,
    keywords: ['from', 'maintainer', 'expose', 'env', 'arg', 'user', 'onbuild', 'stopsignal'],
    contains: [
      hljs.HASH_COMMENT_MODE,
      hljs.APOS_STRING_MODE,
      hljs.QUOTE_STRING_MODE,
      hljs.NUMBER_MODE,
      {
        beginKeywords: 'run cmd entrypoint volume add copy workdir label healthcheck shell',
        starts: {
          end: /[^\\]$/,
          subLanguage: 'bash',
        },
      },
    ],
    illegal: '</',
  };
}
// node_modules/highlight.js/es/languages/go.js
function go(hljs) {
  const KEYWORDS = {
    keyword: [
      'break',
      'case',
      'chan',
      'const',
      'continue',
      'default',
      'defer',
      'else',
      'fallthrough',
      'for',
      'func',
      'go',
      'goto',
      'if',
      'import',
      'interface',
      'map',
      'package',
      'range',
      'return',
      'select',
      'struct',
      'switch',
      'type',
      'var',
    ],
    type: [
      'bool',
      'byte',
      'complex64',
      'complex128',
      'error',
      'float32',
      'float64',
      'int8',
      'int16',
      'int32',
      'int64',
      'string',
      'uint8',
      'uint16',
      'uint32',
      'uint64',
      'int',
      'uint',
      'uintptr',
      'rune',
    ],
    literal: ['true', 'false', 'iota', 'nil'],
    built_in: [
      'append',
      'cap',
      'close',
      'complex',
      'copy',
      'imag',
      'len',
      'make',
      'new',
      'panic',
      'print',
      'println',
      'real',
      'recover',
      'delete',
    ],
  };
  return {
    name: 'Go',
    aliases: ['golang'],
    keywords: KEYWORDS,
    illegal: '</',
    contains: [
      hljs.C_LINE_COMMENT_MODE,
      hljs.C_BLOCK_COMMENT_MODE,
      {
        className: 'string',
        variants: [
          hljs.QUOTE_STRING_MODE,
          hljs.APOS_STRING_MODE,
          {
            begin: '`',
            end: '`',
          },
        ],
      },
      {
        className: 'number',
        variants: [
          {
            match: /-?\b0[xX]\.[a-fA-F0-9](_?[a-fA-F0-9])*[pP][+-]?\d(_?\d)*i?/,
            relevance: 0,
          },
          {
            match: /-?\b0[xX](_?[a-fA-F0-9])+((\.([a-fA-F0-9](_?[a-fA-F0-9])*)?)?[pP][+-]?\d(_?\d)*)?i?/,
            relevance: 0,
          },
          {
            match: /-?\b0[oO](_?[0-7])*i?/,
            relevance: 0,
          },
          {
            match: /-?\b0[bB](_?[01])*i?/,
            relevance: 0,
          },
          {
            match: /-?\.\d(_?\d)*([eE][+-]?\d(_?\d)*)?i?/,
            relevance: 0,
          },
          {
            match: /-?\b\d(_?\d)*(\.(\d(_?\d)*)?)?([eE][+-]?\d(_?\d)*)?i?/,
            relevance: 0,
          },
        ],
      },
      { begin: /:=/ },
      {
        className: 'function',
        beginKeywords: 'func',
        end: '\\s*(\\{|$)',
        excludeEnd: true,
        contains: [
          hljs.TITLE_MODE,
          {
            className: 'params',
            begin: /\(/,
            end: /\)/,
            endsParent: true,
            keywords: KEYWORDS,
            illegal: /["']/,
          },
        ],
      },
    ],
  };
}
// node_modules/highlight.js/es/languages/ini.js
function ini(hljs) {
  const regex = hljs.regex;
  const NUMBERS = {
    className: 'number',
    relevance: 0,
    variants: [{ begin: /([+-]+)?[\d]+_[\d_]+/ }, { begin: hljs.NUMBER_RE }],
  };
  const COMMENTS = hljs.COMMENT();
  COMMENTS.variants = [
    {
      begin: /;/,
      end: /$/,
    },
    {
      begin: /#/,
      end: /$/,
    },
  ];
  const VARIABLES = {
    className: 'variable',
    variants: [{ begin: /\$[\w\d"][\w\d_]*/ }, { begin: /\$\{(.*?)\}/ }],
  };
  const LITERALS = {
    className: 'literal',
    begin: /\bon|off|true|false|yes|no\b/,
  };
  const STRINGS = {
    className: 'string',
    contains: [hljs.BACKSLASH_ESCAPE],
    variants: [
      {
        begin: "'''",
        end: "'''",
        relevance: 10,
      },
      {
        begin: '"""',
        end: '"""',
        relevance: 10,
      },
      {
        begin: '"',
        end: '"',
      },
      {
        begin: "'",
        end: "'",
      },
    ],
  };
  const ARRAY = {
    begin: /\[/,
    end: /\]/,
    contains: [COMMENTS, LITERALS, VARIABLES, STRINGS, NUMBERS, 'self'],
    relevance: 0,
  };
  const ANY_KEY = regex.either(/[A-Za-z0-9_-]+/, /"(\\"|[^"])*"/, /'[^']*'/);
  return {
    name: 'TOML, also INI',
    aliases: ['toml'],
    case_insensitive: true,
    illegal: /\S/,
    contains: [
      COMMENTS,
      {
        className: 'section',
        begin: /\[+/,
        end: /\]+/,
      },
      {
        begin: regex.concat(ANY_KEY, '(\\s*\\.\\s*', ANY_KEY, ')*', regex.lookahead(/\s*=\s*[^#\s]/)),
        className: 'attr',
        starts: {
          end: /$/,
          contains: [COMMENTS, ARRAY, LITERALS, VARIABLES, STRINGS, NUMBERS],
        },
      },
    ],
  };
}
// node_modules/highlight.js/es/languages/java.js
var decimalDigits = '[0-9](_*[0-9])*';
var frac = `\\.(${decimalDigits})`;
var hexDigits = '[0-9a-fA-F](_*[0-9a-fA-F])*';
var NUMERIC = {
  className: 'number',
  variants: [
    { begin: `(\\b(${decimalDigits})((${frac})|\\.)?|(${frac}))[eE][+-]?(${decimalDigits})[fFdD]?\\b` },
    { begin: `\\b(${decimalDigits})((${frac})[fFdD]?\\b|\\.([fFdD]\\b)?)` },
    { begin: `(${frac})[fFdD]?\\b` },
    { begin: `\\b(${decimalDigits})[fFdD]\\b` },
    {
      begin: `\\b0[xX]((${hexDigits})\\.?|(${hexDigits})?\\.(${hexDigits}))[pP][+-]?(${decimalDigits})[fFdD]?\\b`,
    },
    { begin: '\\b(0|[1-9](_*[0-9])*)[lL]?\\b' },
    { begin: `\\b0[xX](${hexDigits})[lL]?\\b` },
    { begin: '\\b0(_*[0-7])*[lL]?\\b' },
    { begin: '\\b0[bB][01](_*[01])*[lL]?\\b' },
  ],
  relevance: 0,
};
/**
 * Allows recursive regex expressions to a given depth
 *
 * ie: recurRegex("(abc~~~)", /~~~/g, 2) becomes:
 * (abc(abc(abc)))
 *
 * @param {string} re
 * @param {RegExp} substitution (should be a g mode regex)
 * @param {number} depth
 * @returns {string}``
 */
function recurRegex(re, substitution, depth) {
  if (depth === -1) return '';
  return re.replace(substitution, (_) => {
    return recurRegex(re, substitution, depth - 1);
  });
}
/** @type LanguageFn */
function java(hljs) {
  const regex = hljs.regex;
  const JAVA_IDENT_RE = '[À-ʸa-zA-Z_$][À-ʸa-zA-Z_$0-9]*';
  const ARRAY_BRACKETS_OPTIONAL_RE = '(?:(?:\\s*\\[\\s*])+)?';
  const TYPE_ARG_RE =
    '(?:\\?(?:\\s+(?:extends|super)\\s+[À-ʸa-zA-Z_$][À-ʸa-zA-Z_$0-9]*<@@@>(?:(?:\\s*\\[\\s*])+)?)?|[À-ʸa-zA-Z_$][À-ʸa-zA-Z_$0-9]*<@@@>(?:(?:\\s*\\[\\s*])+)?)';
  const TYPE_ARGS_OPTIONAL_RE = recurRegex(
    '(?:\\s*<\\s*' + TYPE_ARG_RE + '(?:\\s*,\\s*' + TYPE_ARG_RE + ')*\\s*>)?',
    /<@@@>/g,
    2,
  );
  const KEYWORDS = {
    keyword: [
      'synchronized',
      'abstract',
      'private',
      'var',
      'static',
      'if',
      'const ',
      'for',
      'while',
      'strictfp',
      'finally',
      'protected',
      'import',
      'native',
      'final',
      'void',
      'enum',
      'else',
      'break',
      'transient',
      'catch',
      'instanceof',
      'volatile',
      'case',
      'assert',
      'package',
      'default',
      'public',
      'try',
      'switch',
      'continue',
      'throws',
      'protected',
      'public',
      'private',
      'module',
      'requires',
      'exports',
      'do',
      'sealed',
      'yield',
      'permits',
      'goto',
      'when',
    ],
    literal: ['false', 'true', 'null'],
    type: ['char', 'boolean', 'long', 'float', 'int', 'byte', 'short', 'double'],
    built_in: ['super', 'this'],
  };
  const ANNOTATION = {
    className: 'meta',
    begin: '@' + JAVA_IDENT_RE,
    contains: [
      {
        begin: /\(/,
        end: /\)/,
        contains: ['self'],
      },
    ],
  };
  const PARAMS = {
    className: 'params',
    begin: /\(/,
    end: /\)/,
    keywords: KEYWORDS,
    relevance: 0,
    contains: [hljs.C_BLOCK_COMMENT_MODE],
    endsParent: true,
  };
  return {
    name: 'Java',
    aliases: ['jsp'],
    keywords: KEYWORDS,
    illegal: /<\/|#/,
    contains: [
      hljs.COMMENT('/\\*\\*', '\\*/', {
        relevance: 0,
        contains: [
          {
            begin: /\w+@/,
            relevance: 0,
          },
          {
            className: 'doctag',
            begin: '@[A-Za-z]+',
          },
        ],
      }),
      {
        begin: /import java\.[a-z]+\./,
        keywords: 'import',
        relevance: 2,
      },
      hljs.C_LINE_COMMENT_MODE,
      hljs.C_BLOCK_COMMENT_MODE,
      {
        begin: /"""/,
        end: /"""/,
        className: 'string',
        contains: [hljs.BACKSLASH_ESCAPE],
      },
      hljs.APOS_STRING_MODE,
      hljs.QUOTE_STRING_MODE,
      {
        match: [/\b(?:class|interface|enum|extends|implements|new)/, /\s+/, JAVA_IDENT_RE],
        className: {
          1: 'keyword',
          3: 'title.class',
        },
      },
      {
        match: /non-sealed/,
        scope: 'keyword',
      },
      {
        beginKeywords: 'new throw return else yield assert',
        relevance: 0,
      },
      {
        begin: [
          JAVA_IDENT_RE,
          regex.concat(TYPE_ARGS_OPTIONAL_RE, ARRAY_BRACKETS_OPTIONAL_RE, /\s+/),
          JAVA_IDENT_RE,
          ARRAY_BRACKETS_OPTIONAL_RE,
          /\s*/,
          /=(?!=)/,
        ],
        className: {
          1: 'type',
          3: 'variable',
          6: 'operator',
        },
      },
      {
        begin: [/record/, /\s+/, JAVA_IDENT_RE],
        className: {
          1: 'keyword',
          3: 'title.class',
        },
        contains: [PARAMS, hljs.C_LINE_COMMENT_MODE, hljs.C_BLOCK_COMMENT_MODE],
      },
      {
        begin: [
          JAVA_IDENT_RE,
          regex.concat(TYPE_ARGS_OPTIONAL_RE, ARRAY_BRACKETS_OPTIONAL_RE, /\s+/),
          JAVA_IDENT_RE,
          /\s*(?=\()/,
        ],
        className: {
          1: 'type',
          3: 'title.function',
        },
        keywords: KEYWORDS,
        contains: [
          {
            className: 'params',
            begin: /\(/,
            end: /\)/,
            keywords: KEYWORDS,
            relevance: 0,
            contains: [
              ANNOTATION,
              hljs.APOS_STRING_MODE,
              hljs.QUOTE_STRING_MODE,
              NUMERIC,
              hljs.C_BLOCK_COMMENT_MODE,
            ],
          },
          hljs.C_LINE_COMMENT_MODE,
          hljs.C_BLOCK_COMMENT_MODE,
        ],
      },
      NUMERIC,
      ANNOTATION,
    ],
  };
}
// node_modules/highlight.js/es/languages/javascript.js
var IDENT_RE$2 = '[A-Za-z$_][0-9A-Za-z$_]*';
var KEYWORDS$2 = [
  'as',
  'in',
  'of',
  'if',
  'for',
  'while',
  'finally',
  'var',
  'new',
  'function',
  'do',
  'return',
  'void',
  'else',
  'break',
  'catch',
  'instanceof',
  'with',
  'throw',
  'case',
  'default',
  'try',
  'switch',
  'continue',
  'typeof',
  'delete',
  'let',
  'yield',
  'const',
  'class',
  'debugger',
  'async',
  'await',
  'static',
  'import',
  'from',
  'export',
  'extends',
  'using',
];
var LITERALS$1 = ['true', 'false', 'null', 'undefined', 'NaN', 'Infinity'];
var TYPES$1 = [
  'Object',
  'Function',
  'Boolean',
  'Symbol',
  'Math',
  'Date',
  'Number',
  'BigInt',
  'String',
  'RegExp',
  'Array',
  'Float32Array',
  'Float64Array',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Int32Array',
  'Uint16Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
  'Set',
  'Map',
  'WeakSet',
  'WeakMap',
  'ArrayBuffer',
  'SharedArrayBuffer',
  'Atomics',
  'DataView',
  'JSON',
  'Promise',
  'Generator',
  'GeneratorFunction',
  'AsyncFunction',
  'Reflect',
  'Proxy',
  'Intl',
  'WebAssembly',
];
var ERROR_TYPES$1 = [
  'Error',
  'EvalError',
  'InternalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
];
var BUILT_IN_GLOBALS$1 = [
  'setInterval',
  'setTimeout',
  'clearInterval',
  'clearTimeout',
  'require',
  'exports',
  'eval',
  'isFinite',
  'isNaN',
  'parseFloat',
  'parseInt',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'escape',
  'unescape',
];
var BUILT_IN_VARIABLES$1 = [
  'arguments',
  'this',
  'super',
  'console',
  'window',
  'document',
  'localStorage',
  'sessionStorage',
  'module',
  'self',
  'global',
];
var BUILT_INS$1 = [].concat(BUILT_IN_GLOBALS$1, TYPES$1, ERROR_TYPES$1);
/** @type LanguageFn */
function javascript$1(hljs) {
  const regex = hljs.regex;
  /**
   * Takes a string like "<Booger" and checks to see
   * if we can find a matching "</Booger" later in the
   * content.
   * @param {RegExpMatchArray} match
   * @param {{after:number}} param1
   */
  const hasClosingTag = (match, { after }) => {
    const tag = '</' + match[0].slice(1);
    return match.input.indexOf(tag, after) !== -1;
  };
  const IDENT_RE$1 = IDENT_RE$2;
  const FRAGMENT = {
    begin: '<>',
    end: '</>',
  };
  const XML_SELF_CLOSING = /<[A-Za-z0-9\\._:-]+\s*\/>/;
  const XML_TAG = {
    begin: /<[A-Za-z0-9\\._:-]+/,
    end: /\/[A-Za-z0-9\\._:-]+>|\/>/,
    /**
     * @param {RegExpMatchArray} match
     * @param {CallbackResponse} response
     */
    isTrulyOpeningTag: (match, response) => {
      const afterMatchIndex = match[0].length + match.index;
      const nextChar = match.input[afterMatchIndex];
      if (nextChar === '<' || nextChar === ',') {
        response.ignoreMatch();
        return;
      }
      if (nextChar === '>') {
        if (!hasClosingTag(match, { after: afterMatchIndex })) response.ignoreMatch();
      }
      let m;
      const afterMatch = match.input.substring(afterMatchIndex);
      if ((m = afterMatch.match(/^\s*=/))) {
        response.ignoreMatch();
        return;
      }
      if ((m = afterMatch.match(/^\s+extends\s+/))) {
        if (m.index === 0) {
          response.ignoreMatch();
          return;
        }
      }
    },
  };
  const KEYWORDS$1 = {
    $pattern: IDENT_RE$2,
    keyword: KEYWORDS$2,
    literal: LITERALS$1,
    built_in: BUILT_INS$1,
    'variable.language': BUILT_IN_VARIABLES$1,
  };
  const decimalDigits = '[0-9](_?[0-9])*';
  const frac = `\\.(${decimalDigits})`;
  const decimalInteger = `0|[1-9](_?[0-9])*|0[0-7]*[89][0-9]*`;
  const NUMBER = {
    className: 'number',
    variants: [
      { begin: `(\\b(${decimalInteger})((${frac})|\\.)?|(${frac}))[eE][+-]?(${decimalDigits})\\b` },
      { begin: `\\b(${decimalInteger})\\b((${frac})\\b|\\.)?|(${frac})\\b` },
      { begin: `\\b(0|[1-9](_?[0-9])*)n\\b` },
      { begin: '\\b0[xX][0-9a-fA-F](_?[0-9a-fA-F])*n?\\b' },
      { begin: '\\b0[bB][0-1](_?[0-1])*n?\\b' },
      { begin: '\\b0[oO][0-7](_?[0-7])*n?\\b' },
      { begin: '\\b0[0-7]+n?\\b' },
    ],
    relevance: 0,
  };
  const SUBST = {
    className: 'subst',
    begin: '\\$\\{',
    end: '\\}',
    keywords: KEYWORDS$1,
    contains: [],
  };
  const HTML_TEMPLATE = {
    begin: '.?html`',
    end: '',
    starts: {
      end: '`',
      returnEnd: false,
      contains: [hljs.BACKSLASH_ESCAPE, SUBST],
      subLanguage: 'xml',
    },
  };
  const CSS_TEMPLATE = {
    begin: '.?css`',
    end: '',
    starts: {
      end: '`',
      returnEnd: false,
      contains: [hljs.BACKSLASH_ESCAPE, SUBST],
      subLanguage: 'css',
    },
  };
  const GRAPHQL_TEMPLATE = {
    begin: '.?gql`',
    end: '',
    starts: {
      end: '`',
      returnEnd: false,
      contains: [hljs.BACKSLASH_ESCAPE, SUBST],
      subLanguage: 'graphql',
    },
  };
  const TEMPLATE_STRING = {
    className: 'string',
    begin: '`',
    end: '`',
    contains: [hljs.BACKSLASH_ESCAPE, SUBST],
  };
  const COMMENT = {
    className: 'comment',
    variants: [
      hljs.COMMENT(/\/\*\*(?!\/)/, '\\*/', {
        relevance: 0,
        contains: [
          {
            begin: '(?=@[A-Za-z]+)',
            relevance: 0,
            contains: [
              {
                className: 'doctag',
                begin: '@[A-Za-z]+',
              },
              {
                className: 'type',
                begin: '\\{',
                end: '\\}',
                excludeEnd: true,
                excludeBegin: true,
                relevance: 0,
              },
              {
                className: 'variable',
                begin: IDENT_RE$1 + '(?=\\s*(-)|$)',
                endsParent: true,
                relevance: 0,
              },
              {
                begin: /(?=[^\n])\s/,
                relevance: 0,
              },
            ],
          },
        ],
      }),
      hljs.C_BLOCK_COMMENT_MODE,
      hljs.C_LINE_COMMENT_MODE,
    ],
  };
  const SUBST_INTERNALS = [
    hljs.APOS_STRING_MODE,
    hljs.QUOTE_STRING_MODE,
    HTML_TEMPLATE,
    CSS_TEMPLATE,
    GRAPHQL_TEMPLATE,
    TEMPLATE_STRING,
    { match: /\$\d+/ },
    NUMBER,
  ];
  SUBST.contains = SUBST_INTERNALS.concat({
    begin: /\{/,
    end: /\}/,
    keywords: KEYWORDS$1,
    contains: ['self'].concat(SUBST_INTERNALS),
  });
  const SUBST_AND_COMMENTS = [].concat(COMMENT, SUBST.contains);
  const PARAMS_CONTAINS = SUBST_AND_COMMENTS.concat([
    {
      begin: /(\s*)\(/,
      end: /\)/,
      keywords: KEYWORDS$1,
      contains: ['self'].concat(SUBST_AND_COMMENTS),
    },
  ]);
  const PARAMS = {
    className: 'params',
    begin: /(\s*)\(/,
    end: /\)/,
    excludeBegin: true,
    excludeEnd: true,
    keywords: KEYWORDS$1,
    contains: PARAMS_CONTAINS,
  };
  const CLASS_OR_EXTENDS = {
    variants: [
      {
        match: [
          /class/,
          /\s+/,
          IDENT_RE$1,
          /\s+/,
          /extends/,
          /\s+/,
          regex.concat(IDENT_RE$1, '(', regex.concat(/\./, IDENT_RE$1), ')*'),
        ],
        scope: {
          1: 'keyword',
          3: 'title.class',
          5: 'keyword',
          7: 'title.class.inherited',
        },
      },
      {
        match: [/class/, /\s+/, IDENT_RE$1],
        scope: {
          1: 'keyword',
          3: 'title.class',
        },
      },
    ],
  };
  const CLASS_REFERENCE = {
    relevance: 0,
    match: regex.either(
      /\bJSON/,
      /\b[A-Z][a-z]+([A-Z][a-z]*|\d)*/,
      /\b[A-Z]{2,}([A-Z][a-z]+|\d)+([A-Z][a-z]*)*/,
      /\b[A-Z]{2,}[a-z]+([A-Z][a-z]+|\d)*([A-Z][a-z]*)*/,
    ),
    className: 'title.class',
    keywords: { _: [...TYPES$1, ...ERROR_TYPES$1] },
  };
  const USE_STRICT = {
    label: 'use_strict',
    className: 'meta',
    relevance: 10,
    begin: /^\s*['"]use (strict|asm)['"]/,
  };
  const FUNCTION_DEFINITION = {
    variants: [{ match: [/function/, /\s+/, IDENT_RE$1, /(?=\s*\()/] }, { match: [/function/, /\s*(?=\()/] }],
    className: {
      1: 'keyword',
      3: 'title.function',
    },
    label: 'func.def',
    contains: [PARAMS],
    illegal: /%/,
  };
  const UPPER_CASE_CONSTANT = {
    relevance: 0,
    match: /\b[A-Z][A-Z_0-9]+\b/,
    className: 'variable.constant',
  };
  function noneOf(list) {
    return regex.concat('(?!', list.join('|'), ')');
  }
  const FUNCTION_CALL = {
    match: regex.concat(
      /\b/,
      noneOf([...BUILT_IN_GLOBALS$1, 'super', 'import', 'await'].map((x) => `${x}\\s*\\(`)),
      IDENT_RE$1,
      regex.lookahead(/\s*\(/),
    ),
    className: 'title.function',
    relevance: 0,
  };
  const PROPERTY_ACCESS = {
    begin: regex.concat(/\./, regex.lookahead(regex.concat(IDENT_RE$1, /(?![0-9A-Za-z$_(])/))),
    end: IDENT_RE$1,
    excludeBegin: true,
    keywords: 'prototype',
    className: 'property',
    relevance: 0,
  };
  const GETTER_OR_SETTER = {
    match: [/get|set/, /\s+/, IDENT_RE$1, /(?=\()/],
    className: {
      1: 'keyword',
      3: 'title.function',
    },
    contains: [{ begin: /\(\)/ }, PARAMS],
  };
  const FUNC_LEAD_IN_RE =
    '(\\([^()]*(\\([^()]*(\\([^()]*\\)[^()]*)*\\)[^()]*)*\\)|' + hljs.UNDERSCORE_IDENT_RE + ')\\s*=>';
  const FUNCTION_VARIABLE = {
    match: [
      /const|var|let/,
      /\s+/,
      IDENT_RE$1,
      /\s*/,
      /=\s*/,
      /(async\s*)?/,
      regex.lookahead(FUNC_LEAD_IN_RE),
    ],
    keywords: 'async',
    className: {
      1: 'keyword',
      3: 'title.function',
    },
    contains: [PARAMS],
  };
  return {
    name: 'JavaScript',
    aliases: ['js', 'jsx', 'mjs', 'cjs'],
    keywords: KEYWORDS$1,
    exports: {
      PARAMS_CONTAINS,
      CLASS_REFERENCE,
    },
    illegal: /#(?![$_A-Za-z])/,
    contains: [
      hljs.SHEBANG({
        label: 'shebang',
        binary: 'node',
        relevance: 5,
      }),
      USE_STRICT,
      hljs.APOS_STRING_MODE,
      hljs.QUOTE_STRING_MODE,
      HTML_TEMPLATE,
      CSS_TEMPLATE,
      GRAPHQL_TEMPLATE,
      TEMPLATE_STRING,
      COMMENT,
      { match: /\$\d+/ },
      NUMBER,
      CLASS_REFERENCE,
      {
        scope: 'attr',
        match: IDENT_RE$1 + regex.lookahead(':'),
        relevance: 0,
      },
      FUNCTION_VARIABLE,
      {
        begin: '(' + hljs.RE_STARTERS_RE + '|\\b(case|return|throw)\\b)\\s*',
        keywords: 'return throw case',
        relevance: 0,
        contains: [
          COMMENT,
          hljs.REGEXP_MODE,
          {
            className: 'function',
            begin: FUNC_LEAD_IN_RE,
            returnBegin: true,
            end: '\\s*=>',
            contains: [
              {
                className: 'params',
                variants: [
                  {
                    begin: hljs.UNDERSCORE_IDENT_RE,
                    relevance: 0,
                  },
                  {
                    className: null,
                    begin: /\(\s*\)/,
                    skip: true,
                  },
                  {
                    begin: /(\s*)\(/,
                    end: /\)/,
                    excludeBegin: true,
                    excludeEnd: true,
                    keywords: KEYWORDS$1,
                    contains: PARAMS_CONTAINS,
                  },
                ],
              },
            ],
          },
          {
            begin: /,/,
            relevance: 0,
          },
          {
            match: /\s+/,
            relevance: 0,
          },
          {
            variants: [
              {
                begin: FRAGMENT.begin,
                end: FRAGMENT.end,
              },
              { match: XML_SELF_CLOSING },
              {
                begin: XML_TAG.begin,
                'on:begin': XML_TAG.isTrulyOpeningTag,
                end: XML_TAG.end,
              },
            ],
            subLanguage: 'xml',
            contains: [
              {
                begin: XML_TAG.begin,
                end: XML_TAG.end,
                skip: true,
                contains: ['self'],
              },
            ],
          },
        ],
      },
      FUNCTION_DEFINITION,
      { beginKeywords: 'while if switch catch for' },
      {
        begin:
          '\\b(?!function)' +
          hljs.UNDERSCORE_IDENT_RE +
          '\\([^()]*(\\([^()]*(\\([^()]*\\)[^()]*)*\\)[^()]*)*\\)\\s*\\{',
        returnBegin: true,
        label: 'func.def',
        contains: [
          PARAMS,
          hljs.inherit(hljs.TITLE_MODE, {
            begin: IDENT_RE$1,
            className: 'title.function',
          }),
        ],
      },
      {
        match: /\.\.\./,
        relevance: 0,
      },
      PROPERTY_ACCESS,
      {
        match: '\\$' + IDENT_RE$1,
        relevance: 0,
      },
      {
        match: [/\bconstructor(?=\s*\()/],
        className: { 1: 'title.function' },
        contains: [PARAMS],
      },
      FUNCTION_CALL,
      UPPER_CASE_CONSTANT,
      CLASS_OR_EXTENDS,
      GETTER_OR_SETTER,
      { match: /\$[(.]/ },
    ],
  };
}
// node_modules/highlight.js/es/languages/json.js
var EXTENDED_NUMBER_MODE = {
  scope: 'number',
  match: '([-+]?)(\\b0[xX][a-fA-F0-9]+|(\\b\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?)|NaN|[-+]?Infinity',
  relevance: 0,
};
function json(hljs) {
  const ATTRIBUTE = {
    className: 'attr',
    begin: /(("(\\.|[^\\"\r\n])*")|('(\\.|[^\\'\r\n])*'))(?=\s*:)/,
    relevance: 1.01,
  };
  const PUNCTUATION = {
    match: /[{}[\],:]/,
    className: 'punctuation',
    relevance: 0,
  };
  const LITERALS = ['true', 'false', 'null'];
  const LITERALS_MODE = {
    scope: 'literal',
    beginKeywords: LITERALS.join(' '),
  };
  return {
    name: 'JSON',
    aliases: ['jsonc', 'json5'],
    keywords: { literal: LITERALS },
    contains: [
      ATTRIBUTE,
      PUNCTUATION,
      hljs.APOS_STRING_MODE,
      hljs.QUOTE_STRING_MODE,
      LITERALS_MODE,
      EXTENDED_NUMBER_MODE,
      hljs.C_LINE_COMMENT_MODE,
      hljs.C_BLOCK_COMMENT_MODE,
    ],
    illegal: '\\S',
  };
}
// node_modules/highlight.js/es/languages/markdown.js
function markdown(hljs) {
  const regex = hljs.regex;
  const INLINE_HTML = {
    begin: /<\/?[A-Za-z_]/,
    end: '>',
    subLanguage: 'xml',
    relevance: 0,
  };
  const HORIZONTAL_RULE = { match: /^ {0,3}([-*_])[ \t]*(?:\1[ \t]*){2,}$/ };
  const CODE = {
    className: 'code',
    variants: [
      { begin: '(`{3,})[^`](.|\\n)*?\\1`*[ ]*' },
      { begin: '(~{3,})[^~](.|\\n)*?\\1~*[ ]*' },
      {
        begin: '```',
        end: '```+[ ]*$',
      },
      {
        begin: '~~~',
        end: '~~~+[ ]*$',
      },
      { begin: '`.+?`' },
      {
        begin: '(?=^( {4}|\\t))',
        contains: [
          {
            begin: '^( {4}|\\t)',
            end: '(\\n)$',
          },
        ],
        relevance: 0,
      },
    ],
  };
  const LIST = {
    className: 'bullet',
    begin: '^[ 	]*([*+-]|(\\d+\\.))(?=\\s+)',
    end: '\\s+',
    excludeEnd: true,
  };
  const LINK_REFERENCE = {
    begin: /^\[[^\n]+\]:/,
    returnBegin: true,
    contains: [
      {
        className: 'symbol',
        begin: /\[/,
        end: /\]/,
        excludeBegin: true,
        excludeEnd: true,
      },
      {
        className: 'link',
        begin: /:\s*/,
        end: /$/,
        excludeBegin: true,
      },
    ],
  };
  const LINK = {
    variants: [
      {
        begin: /\[.+?\]\[.*?\]/,
        relevance: 0,
      },
      {
        begin: /\[.+?\]\(((data|javascript|mailto):|(?:http|ftp)s?:\/\/).*?\)/,
        relevance: 2,
      },
      {
        begin: regex.concat(/\[.+?\]\(/, /[A-Za-z][A-Za-z0-9+.-]*/, /:\/\/.*?\)/),
        relevance: 2,
      },
      {
        begin: /\[.+?\]\([./?&#].*?\)/,
        relevance: 1,
      },
      {
        begin: /\[.*?\]\(.*?\)/,
        relevance: 0,
      },
    ],
    returnBegin: true,
    contains: [
      { match: /\[(?=\])/ },
      {
        className: 'string',
        relevance: 0,
        begin: '\\[',
        end: '\\]',
        excludeBegin: true,
        returnEnd: true,
      },
      {
        className: 'link',
        relevance: 0,
        begin: '\\]\\(',
        end: '\\)',
        excludeBegin: true,
        excludeEnd: true,
      },
      {
        className: 'symbol',
        relevance: 0,
        begin: '\\]\\[',
        end: '\\]',
        excludeBegin: true,
        excludeEnd: true,
      },
    ],
  };
  const BOLD = {
    className: 'strong',
    contains: [],
    variants: [
      {
        begin: /_{2}(?!\s)/,
        end: /_{2}/,
      },
      {
        begin: /\*{2}(?!\s)/,
        end: /\*{2}/,
      },
    ],
  };
  const ITALIC = {
    className: 'emphasis',
    contains: [],
    variants: [
      {
        begin: /\*(?![*\s])/,
        end: /\*/,
      },
      {
        begin: /_(?![_\s])/,
        end: /_/,
        relevance: 0,
      },
    ],
  };
  const BOLD_WITHOUT_ITALIC = hljs.inherit(BOLD, { contains: [] });
  const ITALIC_WITHOUT_BOLD = hljs.inherit(ITALIC, { contains: [] });
  BOLD.contains.push(ITALIC_WITHOUT_BOLD);
  ITALIC.contains.push(BOLD_WITHOUT_ITALIC);
  let CONTAINABLE = [INLINE_HTML, LINK];
  [BOLD, ITALIC, BOLD_WITHOUT_ITALIC, ITALIC_WITHOUT_BOLD].forEach((m) => {
    m.contains = m.contains.concat(CONTAINABLE);
  });
  CONTAINABLE = CONTAINABLE.concat(BOLD, ITALIC);
  return {
    name: 'Markdown',
    aliases: ['md', 'mkdown', 'mkd'],
    contains: [
      {
        className: 'section',
        variants: [
          {
            begin: '^#{1,6}',
            end: '$',
            contains: CONTAINABLE,
          },
          {
            begin: '(?=^.+?\\n[=-]{2,}$)',
            contains: [
              { begin: '^[=-]*$' },
              {
                begin: '^',
                end: '\\n',
                contains: CONTAINABLE,
              },
            ],
          },
        ],
      },
      INLINE_HTML,
      LIST,
      HORIZONTAL_RULE,
      BOLD,
      ITALIC,
      {
        className: 'quote',
        begin: '^>\\s+',
        contains: CONTAINABLE,
        end: '$',
      },
      CODE,
      LINK,
      LINK_REFERENCE,
      {
        scope: 'literal',
        match: /&([a-zA-Z0-9]+|#[0-9]{1,7}|#[Xx][0-9a-fA-F]{1,6});/,
      },
    ],
  };
}
// node_modules/highlight.js/es/languages/plaintext.js
function plaintext(hljs) {
  return {
    name: 'Plain text',
    aliases: ['text', 'txt'],
    disableAutodetect: true,
  };
}
// node_modules/highlight.js/es/languages/python.js
function python(hljs) {
  const regex = hljs.regex;
  const IDENT_RE = /[\p{XID_Start}_]\p{XID_Continue}*/u;
  const RESERVED_WORDS = [
    'and',
    'as',
    'assert',
    'async',
    'await',
    'break',
    'case',
    'class',
    'continue',
    'def',
    'del',
    'elif',
    'else',
    'except',
    'finally',
    'for',
    'from',
    'global',
    'if',
    'import',
    'in',
    'is',
    'lambda',
    'lazy',
    'match',
    'nonlocal|10',
    'not',
    'or',
    'pass',
    'raise',
    'return',
    'try',
    'while',
    'with',
    'yield',
  ];
  const KEYWORDS = {
    $pattern: /[A-Za-z]\w+|__\w+__/,
    keyword: RESERVED_WORDS,
    built_in: [
      '__import__',
      'abs',
      'aiter',
      'all',
      'anext',
      'any',
      'ascii',
      'bin',
      'bool',
      'breakpoint',
      'bytearray',
      'bytes',
      'callable',
      'chr',
      'classmethod',
      'compile',
      'complex',
      'delattr',
      'dict',
      'dir',
      'divmod',
      'enumerate',
      'eval',
      'exec',
      'filter',
      'float',
      'format',
      'frozendict',
      'frozenset',
      'getattr',
      'globals',
      'hasattr',
      'hash',
      'help',
      'hex',
      'id',
      'input',
      'int',
      'isinstance',
      'issubclass',
      'iter',
      'len',
      'list',
      'locals',
      'map',
      'max',
      'memoryview',
      'min',
      'next',
      'object',
      'oct',
      'open',
      'ord',
      'pow',
      'print',
      'property',
      'range',
      'repr',
      'reversed',
      'round',
      'sentinel',
      'set',
      'setattr',
      'slice',
      'sorted',
      'staticmethod',
      'str',
      'sum',
      'super',
      'tuple',
      'type',
      'vars',
      'zip',
    ],
    literal: ['__debug__', 'Ellipsis', 'False', 'None', 'NotImplemented', 'True'],
    type: [
      'Any',
      'Callable',
      'Coroutine',
      'Dict',
      'List',
      'Literal',
      'Generic',
      'Optional',
      'Sequence',
      'Set',
      'Tuple',
      'Type',
      'Union',
    ],
  };
  const PROMPT = {
    className: 'meta',
    begin: /^(>>>|\.\.\.) /,
  };
  const SUBST = {
    className: 'subst',
    begin: /\{/,
    end: /\}/,
    keywords: KEYWORDS,
    illegal: /#/,
  };
  const LITERAL_BRACKET = {
    begin: /\{\{/,
    relevance: 0,
  };
  const STRING = {
    className: 'string',
    contains: [hljs.BACKSLASH_ESCAPE],
    variants: [
      {
        begin: /([uU]|[bB]|[rR]|[bB][rR]|[rR][bB])?'''/,
        end: /'''/,
        contains: [hljs.BACKSLASH_ESCAPE, PROMPT],
        relevance: 10,
      },
      {
        begin: /([uU]|[bB]|[rR]|[bB][rR]|[rR][bB])?"""/,
        end: /"""/,
        contains: [hljs.BACKSLASH_ESCAPE, PROMPT],
        relevance: 10,
      },
      {
        begin: /([fFtT][rR]|[rR][fFtT]|[fFtT])'''/,
        end: /'''/,
        contains: [hljs.BACKSLASH_ESCAPE, PROMPT, LITERAL_BRACKET, SUBST],
      },
      {
        begin: /([fFtT][rR]|[rR][fFtT]|[fFtT])"""/,
        end: /"""/,
        contains: [hljs.BACKSLASH_ESCAPE, PROMPT, LITERAL_BRACKET, SUBST],
      },
      {
        begin: /([uU]|[rR])'/,
        end: /'/,
        relevance: 10,
      },
      {
        begin: /([uU]|[rR])"/,
        end: /"/,
        relevance: 10,
      },
      {
        begin: /([bB]|[bB][rR]|[rR][bB])'/,
        end: /'/,
      },
      {
        begin: /([bB]|[bB][rR]|[rR][bB])"/,
        end: /"/,
      },
      {
        begin: /([fFtT][rR]|[rR][fFtT]|[fFtT])'/,
        end: /'/,
        contains: [hljs.BACKSLASH_ESCAPE, LITERAL_BRACKET, SUBST],
      },
      {
        begin: /([fFtT][rR]|[rR][fFtT]|[fFtT])"/,
        end: /"/,
        contains: [hljs.BACKSLASH_ESCAPE, LITERAL_BRACKET, SUBST],
      },
      hljs.APOS_STRING_MODE,
      hljs.QUOTE_STRING_MODE,
    ],
  };
  const digitpart = '[0-9](_?[0-9])*';
  const pointfloat = `(\\b(${digitpart}))?\\.(${digitpart})|\\b(${digitpart})\\.`;
  const lookahead = `\\b|${RESERVED_WORDS.join('|')}`;
  const NUMBER = {
    className: 'number',
    relevance: 0,
    variants: [
      { begin: `(\\b(${digitpart})|(${pointfloat}))[eE][+-]?(${digitpart})[jJ]?(?=${lookahead})` },
      { begin: `(${pointfloat})[jJ]?` },
      { begin: `\\b([1-9](_?[0-9])*|0+(_?0)*)[lLjJ]?(?=${lookahead})` },
      { begin: `\\b0[bB](_?[01])+[lL]?(?=${lookahead})` },
      { begin: `\\b0[oO](_?[0-7])+[lL]?(?=${lookahead})` },
      { begin: `\\b0[xX](_?[0-9a-fA-F])+[lL]?(?=${lookahead})` },
      { begin: `\\b(${digitpart})[jJ](?=${lookahead})` },
    ],
  };
  const COMMENT_TYPE = {
    className: 'comment',
    begin: regex.lookahead(/# type:/),
    end: /$/,
    keywords: KEYWORDS,
    contains: [
      { begin: /# type:/ },
      {
        begin: /#/,
        end: /\b\B/,
        endsWithParent: true,
      },
    ],
  };
  const PARAMS = {
    className: 'params',
    variants: [
      {
        className: '',
        begin: /\(\s*\)/,
        skip: true,
      },
      {
        begin: /\(/,
        end: /\)/,
        excludeBegin: true,
        excludeEnd: true,
        keywords: KEYWORDS,
        contains: ['self', PROMPT, NUMBER, STRING, hljs.HASH_COMMENT_MODE],
      },
    ],
  };
  SUBST.contains = [STRING, NUMBER, PROMPT];
  return {
    name: 'Python',
    aliases: ['py', 'gyp', 'ipython'],
    unicodeRegex: true,
    keywords: KEYWORDS,
    illegal: /(<\/|\?)|=>/,
    contains: [
      PROMPT,
      NUMBER,
      {
        scope: 'variable.language',
        match: /\bself\b/,
      },
      {
        beginKeywords: 'if',
        relevance: 0,
      },
      {
        match: /\bor\b/,
        scope: 'keyword',
      },
      STRING,
      COMMENT_TYPE,
      hljs.HASH_COMMENT_MODE,
      {
        match: [/\bdef/, /\s+/, IDENT_RE],
        scope: {
          1: 'keyword',
          3: 'title.function',
        },
        contains: [PARAMS],
      },
      {
        variants: [
          { match: [/\bclass/, /\s+/, IDENT_RE, /\s*/, /\(\s*/, IDENT_RE, /\s*\)/] },
          { match: [/\bclass/, /\s+/, IDENT_RE] },
        ],
        scope: {
          1: 'keyword',
          3: 'title.class',
          6: 'title.class.inherited',
        },
      },
      {
        className: 'meta',
        begin: /^[\t ]*@/,
        end: /(?=#)|$/,
        contains: [NUMBER, PARAMS, STRING],
      },
    ],
  };
}
// node_modules/highlight.js/es/languages/rust.js
/** @type LanguageFn */
function rust(hljs) {
  const regex = hljs.regex;
  const RAW_IDENTIFIER = /(r#)?/;
  const UNDERSCORE_IDENT_RE = regex.concat(RAW_IDENTIFIER, hljs.UNDERSCORE_IDENT_RE);
  const IDENT_RE = regex.concat(RAW_IDENTIFIER, hljs.IDENT_RE);
  const FUNCTION_INVOKE = {
    scope: 'title.function.invoke',
    relevance: 0,
    begin: regex.concat(/\b/, /(?!(?:let|for|while|if|else|match)\b)/, IDENT_RE, regex.lookahead(/\s*\(/)),
  };
  const NUMBER_SUFFIX = '([ui](8|16|32|64|128|size)|f(16|32|64|128))?';
  const KEYWORDS = [
    'abstract',
    'as',
    'async',
    'await',
    'become',
    'box',
    'break',
    'const',
    'continue',
    'crate',
    'do',
    'dyn',
    'else',
    'enum',
    'extern',
    'false',
    'final',
    'fn',
    'for',
    'if',
    'impl',
    'in',
    'let',
    'loop',
    'macro',
    'match',
    'mod',
    'move',
    'mut',
    'override',
    'priv',
    'pub',
    'raw',
    'ref',
    'return',
    'self',
    'Self',
    'static',
    'struct',
    'super',
    'trait',
    'true',
    'try',
    'type',
    'typeof',
    'union',
    'unsafe',
    'unsized',
    'use',
    'virtual',
    'where',
    'while',
    'yield',
  ];
  const LITERALS = ['true', 'false', 'Some', 'None', 'Ok', 'Err'];
  const BUILTINS = [
    'drop ',
    'Copy',
    'Send',
    'Sized',
    'Sync',
    'Drop',
    'Fn',
    'FnMut',
    'FnOnce',
    'ToOwned',
    'Clone',
    'Debug',
    'PartialEq',
    'PartialOrd',
    'Eq',
    'Ord',
    'AsRef',
    'AsMut',
    'Into',
    'From',
    'Default',
    'Iterator',
    'Extend',
    'IntoIterator',
    'DoubleEndedIterator',
    'ExactSizeIterator',
    'SliceConcatExt',
    'ToString',
    'assert!',
    'assert_eq!',
    'bitflags!',
    'bytes!',
    'cfg!',
    'col!',
    'concat!',
    'concat_idents!',
    'debug_assert!',
    'debug_assert_eq!',
    'env!',
    'eprintln!',
    'panic!',
    'file!',
    'format!',
    'format_args!',
    'include_bytes!',
    'include_str!',
    'line!',
    'local_data_key!',
    'module_path!',
    'option_env!',
    'print!',
    'println!',
    'select!',
    'stringify!',
    'try!',
    'unimplemented!',
    'unreachable!',
    'vec!',
    'write!',
    'writeln!',
    'macro_rules!',
    'assert_ne!',
    'debug_assert_ne!',
  ];
  const TYPES = [
    'i8',
    'i16',
    'i32',
    'i64',
    'i128',
    'isize',
    'u8',
    'u16',
    'u32',
    'u64',
    'u128',
    'usize',
    'f16',
    'f32',
    'f64',
    'f128',
    'str',
    'char',
    'bool',
    'Box',
    'Option',
    'Result',
    'String',
    'Vec',
  ];
  return {
    name: 'Rust',
    aliases: ['rs'],
    keywords: {
      $pattern: hljs.IDENT_RE + '!?',
      type: TYPES,
      keyword: KEYWORDS,
      literal: LITERALS,
      built_in: BUILTINS,
    },
    illegal: '</',
    contains: [
      hljs.C_LINE_COMMENT_MODE,
      hljs.COMMENT('/\\*', '\\*/', { contains: ['self'] }),
      hljs.inherit(hljs.QUOTE_STRING_MODE, {
        begin: /b?"/,
        illegal: null,
      }),
      {
        scope: 'symbol',
        begin: /'[a-zA-Z_][a-zA-Z0-9_]*(?!')/,
      },
      {
        scope: 'string',
        variants: [
          { begin: /b?r(#*)"(.|\n)*?"\1(?!#)/ },
          {
            begin: /b?'/,
            end: /'/,
            contains: [
              {
                scope: 'char.escape',
                match: /\\('|"|\\|\w|x\w{2}|u\w{4}|U\w{8})/,
              },
            ],
          },
        ],
      },
      {
        scope: 'number',
        variants: [
          { begin: '\\b0b([01_]+)' + NUMBER_SUFFIX },
          { begin: '\\b0o([0-7_]+)' + NUMBER_SUFFIX },
          { begin: '\\b0x([A-Fa-f0-9_]+)' + NUMBER_SUFFIX },
          { begin: '\\b(\\d[\\d_]*(\\.[0-9_]+)?([eE][+-]?[0-9_]+)?)' + NUMBER_SUFFIX },
        ],
        relevance: 0,
      },
      {
        begin: [/\bsafe/, /\s+/, /extern/],
        scope: {
          1: 'keyword',
          3: 'keyword',
        },
      },
      {
        begin: [/fn/, /\s+/, UNDERSCORE_IDENT_RE],
        scope: {
          1: 'keyword',
          3: 'title.function',
        },
      },
      {
        scope: 'meta',
        begin: '#!?\\[',
        end: '\\]',
        contains: [
          {
            scope: 'string',
            begin: /"/,
            end: /"/,
            contains: [hljs.BACKSLASH_ESCAPE],
          },
        ],
      },
      {
        begin: [/let/, /\s+/, /(?:mut\s+)?/, UNDERSCORE_IDENT_RE],
        scope: {
          1: 'keyword',
          3: 'keyword',
          4: 'variable',
        },
      },
      {
        begin: [/for/, /\s+/, UNDERSCORE_IDENT_RE, /\s+/, /in/],
        scope: {
          1: 'keyword',
          3: 'variable',
          5: 'keyword',
        },
      },
      {
        begin: [/type/, /\s+/, UNDERSCORE_IDENT_RE],
        scope: {
          1: 'keyword',
          3: 'title.class',
        },
      },
      {
        begin: [/(?:trait|enum|struct|union|impl|for)/, /\s+/, UNDERSCORE_IDENT_RE],
        scope: {
          1: 'keyword',
          3: 'title.class',
        },
      },
      {
        begin: hljs.IDENT_RE + '::',
        keywords: {
          keyword: 'Self',
          built_in: BUILTINS,
          type: TYPES,
        },
      },
      {
        scope: 'punctuation',
        begin: '->',
      },
      FUNCTION_INVOKE,
    ],
  };
}
// node_modules/highlight.js/es/languages/shell.js
/** @type LanguageFn */
function shell(hljs) {
  return {
    name: 'Shell Session',
    aliases: ['console', 'shellsession'],
    contains: [
      {
        className: 'meta.prompt',
        begin: /^\s{0,3}[./~\w\d[\]()@-]*[>%$#][ ]?/,
        starts: {
          end: /[^\\](?=\s*$)/,
          subLanguage: 'bash',
        },
      },
    ],
  };
}
// node_modules/highlight.js/es/languages/sql.js
function sql(hljs) {
  const regex = hljs.regex;
  const COMMENT_MODE = hljs.COMMENT('--', '$');
  const STRING = {
    scope: 'string',
    variants: [
      {
        begin: /'/,
        end: /'/,
        contains: [{ match: /''/ }],
      },
    ],
  };
  const QUOTED_IDENTIFIER = {
    begin: /"/,
    end: /"/,
    contains: [{ match: /""/ }],
  };
  const LITERALS = ['true', 'false', 'unknown'];
  const MULTI_WORD_TYPES = ['double precision', 'large object', 'with timezone', 'without timezone'];
  const TYPES = [
    'bigint',
    'binary',
    'blob',
    'boolean',
    'char',
    'character',
    'clob',
    'date',
    'dec',
    'decfloat',
    'decimal',
    'float',
    'int',
    'integer',
    'interval',
    'nchar',
    'nclob',
    'national',
    'numeric',
    'real',
    'row',
    'smallint',
    'time',
    'timestamp',
    'varchar',
    'varying',
    'varbinary',
  ];
  const NON_RESERVED_WORDS = ['add', 'asc', 'collation', 'desc', 'final', 'first', 'last', 'view'];
  const RESERVED_WORDS = [
    'abs',
    'acos',
    'all',
    'allocate',
    'alter',
    'and',
    'any',
    'are',
    'array',
    'array_agg',
    'array_max_cardinality',
    'as',
    'asensitive',
    'asin',
    'asymmetric',
    'at',
    'atan',
    'atomic',
    'authorization',
    'avg',
    'begin',
    'begin_frame',
    'begin_partition',
    'between',
    'bigint',
    'binary',
    'blob',
    'boolean',
    'both',
    'by',
    'call',
    'called',
    'cardinality',
    'cascaded',
    'case',
    'cast',
    'ceil',
    'ceiling',
    'char',
    'char_length',
    'character',
    'character_length',
    'check',
    'classifier',
    'clob',
    'close',
    'coalesce',
    'collate',
    'collect',
    'column',
    'commit',
    'condition',
    'connect',
    'constraint',
    'contains',
    'convert',
    'copy',
    'corr',
    'corresponding',
    'cos',
    'cosh',
    'count',
    'covar_pop',
    'covar_samp',
    'create',
    'cross',
    'cube',
    'cume_dist',
    'current',
    'current_catalog',
    'current_date',
    'current_default_transform_group',
    'current_path',
    'current_role',
    'current_row',
    'current_schema',
    'current_time',
    'current_timestamp',
    'current_path',
    'current_role',
    'current_transform_group_for_type',
    'current_user',
    'cursor',
    'cycle',
    'date',
    'day',
    'deallocate',
    'dec',
    'decimal',
    'decfloat',
    'declare',
    'default',
    'define',
    'delete',
    'dense_rank',
    'deref',
    'describe',
    'deterministic',
    'disconnect',
    'distinct',
    'double',
    'drop',
    'dynamic',
    'each',
    'element',
    'else',
    'empty',
    'end',
    'end_frame',
    'end_partition',
    'end-exec',
    'equals',
    'escape',
    'every',
    'except',
    'exec',
    'execute',
    'exists',
    'exp',
    'external',
    'extract',
    'false',
    'fetch',
    'filter',
    'first_value',
    'float',
    'floor',
    'for',
    'foreign',
    'frame_row',
    'free',
    'from',
    'full',
    'function',
    'fusion',
    'get',
    'global',
    'grant',
    'group',
    'grouping',
    'groups',
    'having',
    'hold',
    'hour',
    'identity',
    'in',
    'indicator',
    'initial',
    'inner',
    'inout',
    'insensitive',
    'insert',
    'int',
    'integer',
    'intersect',
    'intersection',
    'interval',
    'into',
    'is',
    'join',
    'json_array',
    'json_arrayagg',
    'json_exists',
    'json_object',
    'json_objectagg',
    'json_query',
    'json_table',
    'json_table_primitive',
    'json_value',
    'lag',
    'language',
    'large',
    'last_value',
    'lateral',
    'lead',
    'leading',
    'left',
    'like',
    'like_regex',
    'listagg',
    'ln',
    'local',
    'localtime',
    'localtimestamp',
    'log',
    'log10',
    'lower',
    'match',
    'match_number',
    'match_recognize',
    'matches',
    'max',
    'member',
    'merge',
    'method',
    'min',
    'minute',
    'mod',
    'modifies',
    'module',
    'month',
    'multiset',
    'national',
    'natural',
    'nchar',
    'nclob',
    'new',
    'no',
    'none',
    'normalize',
    'not',
    'nth_value',
    'ntile',
    'null',
    'nullif',
    'numeric',
    'octet_length',
    'occurrences_regex',
    'of',
    'offset',
    'old',
    'omit',
    'on',
    'one',
    'only',
    'open',
    'or',
    'order',
    'out',
    'outer',
    'over',
    'overlaps',
    'overlay',
    'parameter',
    'partition',
    'pattern',
    'per',
    'percent',
    'percent_rank',
    'percentile_cont',
    'percentile_disc',
    'period',
    'portion',
    'position',
    'position_regex',
    'power',
    'precedes',
    'precision',
    'prepare',
    'primary',
    'procedure',
    'ptf',
    'range',
    'rank',
    'reads',
    'real',
    'recursive',
    'ref',
    'references',
    'referencing',
    'regr_avgx',
    'regr_avgy',
    'regr_count',
    'regr_intercept',
    'regr_r2',
    'regr_slope',
    'regr_sxx',
    'regr_sxy',
    'regr_syy',
    'release',
    'result',
    'return',
    'returns',
    'revoke',
    'right',
    'rollback',
    'rollup',
    'row',
    'row_number',
    'rows',
    'running',
    'savepoint',
    'scope',
    'scroll',
    'search',
    'second',
    'seek',
    'select',
    'sensitive',
    'session_user',
    'set',
    'show',
    'similar',
    'sin',
    'sinh',
    'skip',
    'smallint',
    'some',
    'specific',
    'specifictype',
    'sql',
    'sqlexception',
    'sqlstate',
    'sqlwarning',
    'sqrt',
    'start',
    'static',
    'stddev_pop',
    'stddev_samp',
    'submultiset',
    'subset',
    'substring',
    'substring_regex',
    'succeeds',
    'sum',
    'symmetric',
    'system',
    'system_time',
    'system_user',
    'table',
    'tablesample',
    'tan',
    'tanh',
    'then',
    'time',
    'timestamp',
    'timezone_hour',
    'timezone_minute',
    'to',
    'trailing',
    'translate',
    'translate_regex',
    'translation',
    'treat',
    'trigger',
    'trim',
    'trim_array',
    'true',
    'truncate',
    'uescape',
    'union',
    'unique',
    'unknown',
    'unnest',
    'update',
    'upper',
    'user',
    'using',
    'value',
    'values',
    'value_of',
    'var_pop',
    'var_samp',
    'varbinary',
    'varchar',
    'varying',
    'versioning',
    'when',
    'whenever',
    'where',
    'width_bucket',
    'window',
    'with',
    'within',
    'without',
    'year',
  ];
  const RESERVED_FUNCTIONS = [
    'abs',
    'acos',
    'array_agg',
    'asin',
    'atan',
    'avg',
    'cast',
    'ceil',
    'ceiling',
    'coalesce',
    'corr',
    'cos',
    'cosh',
    'count',
    'covar_pop',
    'covar_samp',
    'cume_dist',
    'dense_rank',
    'deref',
    'element',
    'exp',
    'extract',
    'first_value',
    'floor',
    'json_array',
    'json_arrayagg',
    'json_exists',
    'json_object',
    'json_objectagg',
    'json_query',
    'json_table',
    'json_table_primitive',
    'json_value',
    'lag',
    'last_value',
    'lead',
    'listagg',
    'ln',
    'log',
    'log10',
    'lower',
    'max',
    'min',
    'mod',
    'nth_value',
    'ntile',
    'nullif',
    'percent_rank',
    'percentile_cont',
    'percentile_disc',
    'position',
    'position_regex',
    'power',
    'rank',
    'regr_avgx',
    'regr_avgy',
    'regr_count',
    'regr_intercept',
    'regr_r2',
    'regr_slope',
    'regr_sxx',
    'regr_sxy',
    'regr_syy',
    'row_number',
    'sin',
    'sinh',
    'sqrt',
    'stddev_pop',
    'stddev_samp',
    'substring',
    'substring_regex',
    'sum',
    'tan',
    'tanh',
    'translate',
    'translate_regex',
    'treat',
    'trim',
    'trim_array',
    'unnest',
    'upper',
    'value_of',
    'var_pop',
    'var_samp',
    'width_bucket',
  ];
  const POSSIBLE_WITHOUT_PARENS = [
    'current_catalog',
    'current_date',
    'current_default_transform_group',
    'current_path',
    'current_role',
    'current_schema',
    'current_transform_group_for_type',
    'current_user',
    'session_user',
    'system_time',
    'system_user',
    'current_time',
    'localtime',
    'current_timestamp',
    'localtimestamp',
  ];
  const COMBOS = [
    'create table',
    'insert into',
    'primary key',
    'foreign key',
    'not null',
    'alter table',
    'add constraint',
    'grouping sets',
    'on overflow',
    'character set',
    'respect nulls',
    'ignore nulls',
    'nulls first',
    'nulls last',
    'depth first',
    'breadth first',
  ];
  const FUNCTIONS = RESERVED_FUNCTIONS;
  const KEYWORDS = [...RESERVED_WORDS, ...NON_RESERVED_WORDS].filter((keyword) => {
    return !RESERVED_FUNCTIONS.includes(keyword);
  });
  const VARIABLE = {
    scope: 'variable',
    match: /@[a-z0-9][a-z0-9_]*/,
  };
  const OPERATOR = {
    scope: 'operator',
    match: /[-+*/=%^~]|&&?|\|\|?|!=?|<(?:=>?|<|>)?|>[>=]?/,
    relevance: 0,
  };
  const FUNCTION_CALL = {
    match: regex.concat(/\b/, regex.either(...FUNCTIONS), /\s*\(/),
    relevance: 0,
    keywords: { built_in: FUNCTIONS },
  };
  function kws_to_regex(list) {
    return regex.concat(
      /\b/,
      regex.either(
        ...list.map((kw) => {
          return kw.replace(/\s+/, '\\s+');
        }),
      ),
      /\b/,
    );
  }
  const MULTI_WORD_KEYWORDS = {
    scope: 'keyword',
    match: kws_to_regex(COMBOS),
    relevance: 0,
  };
  function reduceRelevancy(list, { exceptions, when } = {}) {
    const qualifyFn = when;
    exceptions = exceptions || [];
    return list.map((item) => {
      if (item.match(/\|\d+$/) || exceptions.includes(item)) return item;
      else if (qualifyFn(item)) return `${item}|0`;
      else return item;
    });
  }
  return {
    name: 'SQL',
    case_insensitive: true,
    illegal: /[{}]|<\//,
    keywords: {
      $pattern: /\b[\w\.]+/,
      keyword: reduceRelevancy(KEYWORDS, { when: (x) => x.length < 3 }),
      literal: LITERALS,
      type: TYPES,
      built_in: POSSIBLE_WITHOUT_PARENS,
    },
    contains: [
      {
        scope: 'type',
        match: kws_to_regex(MULTI_WORD_TYPES),
      },
      MULTI_WORD_KEYWORDS,
      FUNCTION_CALL,
      VARIABLE,
      STRING,
      QUOTED_IDENTIFIER,
      hljs.C_NUMBER_MODE,
      hljs.C_BLOCK_COMMENT_MODE,
      COMMENT_MODE,
      OPERATOR,
    ],
  };
}
// node_modules/highlight.js/es/languages/typescript.js
var IDENT_RE = '[A-Za-z$_][0-9A-Za-z$_]*';
var KEYWORDS = [
  'as',
  'in',
  'of',
  'if',
  'for',
  'while',
  'finally',
  'var',
  'new',
  'function',
  'do',
  'return',
  'void',
  'else',
  'break',
  'catch',
  'instanceof',
  'with',
  'throw',
  'case',
  'default',
  'try',
  'switch',
  'continue',
  'typeof',
  'delete',
  'let',
  'yield',
  'const',
  'class',
  'debugger',
  'async',
  'await',
  'static',
  'import',
  'from',
  'export',
  'extends',
  'using',
];
var LITERALS = ['true', 'false', 'null', 'undefined', 'NaN', 'Infinity'];
var TYPES = [
  'Object',
  'Function',
  'Boolean',
  'Symbol',
  'Math',
  'Date',
  'Number',
  'BigInt',
  'String',
  'RegExp',
  'Array',
  'Float32Array',
  'Float64Array',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Int32Array',
  'Uint16Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
  'Set',
  'Map',
  'WeakSet',
  'WeakMap',
  'ArrayBuffer',
  'SharedArrayBuffer',
  'Atomics',
  'DataView',
  'JSON',
  'Promise',
  'Generator',
  'GeneratorFunction',
  'AsyncFunction',
  'Reflect',
  'Proxy',
  'Intl',
  'WebAssembly',
];
var ERROR_TYPES = [
  'Error',
  'EvalError',
  'InternalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
];
var BUILT_IN_GLOBALS = [
  'setInterval',
  'setTimeout',
  'clearInterval',
  'clearTimeout',
  'require',
  'exports',
  'eval',
  'isFinite',
  'isNaN',
  'parseFloat',
  'parseInt',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'escape',
  'unescape',
];
var BUILT_IN_VARIABLES = [
  'arguments',
  'this',
  'super',
  'console',
  'window',
  'document',
  'localStorage',
  'sessionStorage',
  'module',
  'self',
  'global',
];
var BUILT_INS = [].concat(BUILT_IN_GLOBALS, TYPES, ERROR_TYPES);
/** @type LanguageFn */
function javascript(hljs) {
  const regex = hljs.regex;
  /**
   * Takes a string like "<Booger" and checks to see
   * if we can find a matching "</Booger" later in the
   * content.
   * @param {RegExpMatchArray} match
   * @param {{after:number}} param1
   */
  const hasClosingTag = (match, { after }) => {
    const tag = '</' + match[0].slice(1);
    return match.input.indexOf(tag, after) !== -1;
  };
  const IDENT_RE$1 = IDENT_RE;
  const FRAGMENT = {
    begin: '<>',
    end: '</>',
  };
  const XML_SELF_CLOSING = /<[A-Za-z0-9\\._:-]+\s*\/>/;
  const XML_TAG = {
    begin: /<[A-Za-z0-9\\._:-]+/,
    end: /\/[A-Za-z0-9\\._:-]+>|\/>/,
    /**
     * @param {RegExpMatchArray} match
     * @param {CallbackResponse} response
     */
    isTrulyOpeningTag: (match, response) => {
      const afterMatchIndex = match[0].length + match.index;
      const nextChar = match.input[afterMatchIndex];
      if (nextChar === '<' || nextChar === ',') {
        response.ignoreMatch();
        return;
      }
      if (nextChar === '>') {
        if (!hasClosingTag(match, { after: afterMatchIndex })) response.ignoreMatch();
      }
      let m;
      const afterMatch = match.input.substring(afterMatchIndex);
      if ((m = afterMatch.match(/^\s*=/))) {
        response.ignoreMatch();
        return;
      }
      if ((m = afterMatch.match(/^\s+extends\s+/))) {
        if (m.index === 0) {
          response.ignoreMatch();
          return;
        }
      }
    },
  };
  const KEYWORDS$1 = {
    $pattern: IDENT_RE,
    keyword: KEYWORDS,
    literal: LITERALS,
    built_in: BUILT_INS,
    'variable.language': BUILT_IN_VARIABLES,
  };
  const decimalDigits = '[0-9](_?[0-9])*';
  const frac = `\\.(${decimalDigits})`;
  const decimalInteger = `0|[1-9](_?[0-9])*|0[0-7]*[89][0-9]*`;
  const NUMBER = {
    className: 'number',
    variants: [
      { begin: `(\\b(${decimalInteger})((${frac})|\\.)?|(${frac}))[eE][+-]?(${decimalDigits})\\b` },
      { begin: `\\b(${decimalInteger})\\b((${frac})\\b|\\.)?|(${frac})\\b` },
      { begin: `\\b(0|[1-9](_?[0-9])*)n\\b` },
      { begin: '\\b0[xX][0-9a-fA-F](_?[0-9a-fA-F])*n?\\b' },
      { begin: '\\b0[bB][0-1](_?[0-1])*n?\\b' },
      { begin: '\\b0[oO][0-7](_?[0-7])*n?\\b' },
      { begin: '\\b0[0-7]+n?\\b' },
    ],
    relevance: 0,
  };
  const SUBST = {
    className: 'subst',
    begin: '\\$\\{',
    end: '\\}',
    keywords: KEYWORDS$1,
    contains: [],
  };
  const HTML_TEMPLATE = {
    begin: '.?html`',
    end: '',
    starts: {
      end: '`',
      returnEnd: false,
      contains: [hljs.BACKSLASH_ESCAPE, SUBST],
      subLanguage: 'xml',
    },
  };
  const CSS_TEMPLATE = {
    begin: '.?css`',
    end: '',
    starts: {
      end: '`',
      returnEnd: false,
      contains: [hljs.BACKSLASH_ESCAPE, SUBST],
      subLanguage: 'css',
    },
  };
  const GRAPHQL_TEMPLATE = {
    begin: '.?gql`',
    end: '',
    starts: {
      end: '`',
      returnEnd: false,
      contains: [hljs.BACKSLASH_ESCAPE, SUBST],
      subLanguage: 'graphql',
    },
  };
  const TEMPLATE_STRING = {
    className: 'string',
    begin: '`',
    end: '`',
    contains: [hljs.BACKSLASH_ESCAPE, SUBST],
  };
  const COMMENT = {
    className: 'comment',
    variants: [
      hljs.COMMENT(/\/\*\*(?!\/)/, '\\*/', {
        relevance: 0,
        contains: [
          {
            begin: '(?=@[A-Za-z]+)',
            relevance: 0,
            contains: [
              {
                className: 'doctag',
                begin: '@[A-Za-z]+',
              },
              {
                className: 'type',
                begin: '\\{',
                end: '\\}',
                excludeEnd: true,
                excludeBegin: true,
                relevance: 0,
              },
              {
                className: 'variable',
                begin: IDENT_RE$1 + '(?=\\s*(-)|$)',
                endsParent: true,
                relevance: 0,
              },
              {
                begin: /(?=[^\n])\s/,
                relevance: 0,
              },
            ],
          },
        ],
      }),
      hljs.C_BLOCK_COMMENT_MODE,
      hljs.C_LINE_COMMENT_MODE,
    ],
  };
  const SUBST_INTERNALS = [
    hljs.APOS_STRING_MODE,
    hljs.QUOTE_STRING_MODE,
    HTML_TEMPLATE,
    CSS_TEMPLATE,
    GRAPHQL_TEMPLATE,
    TEMPLATE_STRING,
    { match: /\$\d+/ },
    NUMBER,
  ];
  SUBST.contains = SUBST_INTERNALS.concat({
    begin: /\{/,
    end: /\}/,
    keywords: KEYWORDS$1,
    contains: ['self'].concat(SUBST_INTERNALS),
  });
  const SUBST_AND_COMMENTS = [].concat(COMMENT, SUBST.contains);
  const PARAMS_CONTAINS = SUBST_AND_COMMENTS.concat([
    {
      begin: /(\s*)\(/,
      end: /\)/,
      keywords: KEYWORDS$1,
      contains: ['self'].concat(SUBST_AND_COMMENTS),
    },
  ]);
  const PARAMS = {
    className: 'params',
    begin: /(\s*)\(/,
    end: /\)/,
    excludeBegin: true,
    excludeEnd: true,
    keywords: KEYWORDS$1,
    contains: PARAMS_CONTAINS,
  };
  const CLASS_OR_EXTENDS = {
    variants: [
      {
        match: [
          /class/,
          /\s+/,
          IDENT_RE$1,
          /\s+/,
          /extends/,
          /\s+/,
          regex.concat(IDENT_RE$1, '(', regex.concat(/\./, IDENT_RE$1), ')*'),
        ],
        scope: {
          1: 'keyword',
          3: 'title.class',
          5: 'keyword',
          7: 'title.class.inherited',
        },
      },
      {
        match: [/class/, /\s+/, IDENT_RE$1],
        scope: {
          1: 'keyword',
          3: 'title.class',
        },
      },
    ],
  };
  const CLASS_REFERENCE = {
    relevance: 0,
    match: regex.either(
      /\bJSON/,
      /\b[A-Z][a-z]+([A-Z][a-z]*|\d)*/,
      /\b[A-Z]{2,}([A-Z][a-z]+|\d)+([A-Z][a-z]*)*/,
      /\b[A-Z]{2,}[a-z]+([A-Z][a-z]+|\d)*([A-Z][a-z]*)*/,
    ),
    className: 'title.class',
    keywords: { _: [...TYPES, ...ERROR_TYPES] },
  };
  const USE_STRICT = {
    label: 'use_strict',
    className: 'meta',
    relevance: 10,
    begin: /^\s*['"]use (strict|asm)['"]/,
  };
  const FUNCTION_DEFINITION = {
    variants: [{ match: [/function/, /\s+/, IDENT_RE$1, /(?=\s*\()/] }, { match: [/function/, /\s*(?=\()/] }],
    className: {
      1: 'keyword',
      3: 'title.function',
    },
    label: 'func.def',
    contains: [PARAMS],
    illegal: /%/,
  };
  const UPPER_CASE_CONSTANT = {
    relevance: 0,
    match: /\b[A-Z][A-Z_0-9]+\b/,
    className: 'variable.constant',
  };
  function noneOf(list) {
    return regex.concat('(?!', list.join('|'), ')');
  }
  const FUNCTION_CALL = {
    match: regex.concat(
      /\b/,
      noneOf([...BUILT_IN_GLOBALS, 'super', 'import', 'await'].map((x) => `${x}\\s*\\(`)),
      IDENT_RE$1,
      regex.lookahead(/\s*\(/),
    ),
    className: 'title.function',
    relevance: 0,
  };
  const PROPERTY_ACCESS = {
    begin: regex.concat(/\./, regex.lookahead(regex.concat(IDENT_RE$1, /(?![0-9A-Za-z$_(])/))),
    end: IDENT_RE$1,
    excludeBegin: true,
    keywords: 'prototype',
    className: 'property',
    relevance: 0,
  };
  const GETTER_OR_SETTER = {
    match: [/get|set/, /\s+/, IDENT_RE$1, /(?=\()/],
    className: {
      1: 'keyword',
      3: 'title.function',
    },
    contains: [{ begin: /\(\)/ }, PARAMS],
  };
  const FUNC_LEAD_IN_RE =
    '(\\([^()]*(\\([^()]*(\\([^()]*\\)[^()]*)*\\)[^()]*)*\\)|' + hljs.UNDERSCORE_IDENT_RE + ')\\s*=>';
  const FUNCTION_VARIABLE = {
    match: [
      /const|var|let/,
      /\s+/,
      IDENT_RE$1,
      /\s*/,
      /=\s*/,
      /(async\s*)?/,
      regex.lookahead(FUNC_LEAD_IN_RE),
    ],
    keywords: 'async',
    className: {
      1: 'keyword',
      3: 'title.function',
    },
    contains: [PARAMS],
  };
  return {
    name: 'JavaScript',
    aliases: ['js', 'jsx', 'mjs', 'cjs'],
    keywords: KEYWORDS$1,
    exports: {
      PARAMS_CONTAINS,
      CLASS_REFERENCE,
    },
    illegal: /#(?![$_A-Za-z])/,
    contains: [
      hljs.SHEBANG({
        label: 'shebang',
        binary: 'node',
        relevance: 5,
      }),
      USE_STRICT,
      hljs.APOS_STRING_MODE,
      hljs.QUOTE_STRING_MODE,
      HTML_TEMPLATE,
      CSS_TEMPLATE,
      GRAPHQL_TEMPLATE,
      TEMPLATE_STRING,
      COMMENT,
      { match: /\$\d+/ },
      NUMBER,
      CLASS_REFERENCE,
      {
        scope: 'attr',
        match: IDENT_RE$1 + regex.lookahead(':'),
        relevance: 0,
      },
      FUNCTION_VARIABLE,
      {
        begin: '(' + hljs.RE_STARTERS_RE + '|\\b(case|return|throw)\\b)\\s*',
        keywords: 'return throw case',
        relevance: 0,
        contains: [
          COMMENT,
          hljs.REGEXP_MODE,
          {
            className: 'function',
            begin: FUNC_LEAD_IN_RE,
            returnBegin: true,
            end: '\\s*=>',
            contains: [
              {
                className: 'params',
                variants: [
                  {
                    begin: hljs.UNDERSCORE_IDENT_RE,
                    relevance: 0,
                  },
                  {
                    className: null,
                    begin: /\(\s*\)/,
                    skip: true,
                  },
                  {
                    begin: /(\s*)\(/,
                    end: /\)/,
                    excludeBegin: true,
                    excludeEnd: true,
                    keywords: KEYWORDS$1,
                    contains: PARAMS_CONTAINS,
                  },
                ],
              },
            ],
          },
          {
            begin: /,/,
            relevance: 0,
          },
          {
            match: /\s+/,
            relevance: 0,
          },
          {
            variants: [
              {
                begin: FRAGMENT.begin,
                end: FRAGMENT.end,
              },
              { match: XML_SELF_CLOSING },
              {
                begin: XML_TAG.begin,
                'on:begin': XML_TAG.isTrulyOpeningTag,
                end: XML_TAG.end,
              },
            ],
            subLanguage: 'xml',
            contains: [
              {
                begin: XML_TAG.begin,
                end: XML_TAG.end,
                skip: true,
                contains: ['self'],
              },
            ],
          },
        ],
      },
      FUNCTION_DEFINITION,
      { beginKeywords: 'while if switch catch for' },
      {
        begin:
          '\\b(?!function)' +
          hljs.UNDERSCORE_IDENT_RE +
          '\\([^()]*(\\([^()]*(\\([^()]*\\)[^()]*)*\\)[^()]*)*\\)\\s*\\{',
        returnBegin: true,
        label: 'func.def',
        contains: [
          PARAMS,
          hljs.inherit(hljs.TITLE_MODE, {
            begin: IDENT_RE$1,
            className: 'title.function',
          }),
        ],
      },
      {
        match: /\.\.\./,
        relevance: 0,
      },
      PROPERTY_ACCESS,
      {
        match: '\\$' + IDENT_RE$1,
        relevance: 0,
      },
      {
        match: [/\bconstructor(?=\s*\()/],
        className: { 1: 'title.function' },
        contains: [PARAMS],
      },
      FUNCTION_CALL,
      UPPER_CASE_CONSTANT,
      CLASS_OR_EXTENDS,
      GETTER_OR_SETTER,
      { match: /\$[(.]/ },
    ],
  };
}
/** @type LanguageFn */
function typescript(hljs) {
  const regex = hljs.regex;
  const tsLanguage = javascript(hljs);
  const IDENT_RE$1 = IDENT_RE;
  const TYPES = [
    'any',
    'void',
    'number',
    'boolean',
    'string',
    'object',
    'never',
    'symbol',
    'bigint',
    'unknown',
  ];
  const NAMESPACE = {
    begin: [/namespace/, /\s+/, hljs.IDENT_RE],
    beginScope: {
      1: 'keyword',
      3: 'title.class',
    },
  };
  const INTERFACE = {
    beginKeywords: 'interface',
    end: /\{/,
    excludeEnd: true,
    keywords: {
      keyword: 'interface extends',
      built_in: TYPES,
    },
    contains: [tsLanguage.exports.CLASS_REFERENCE],
  };
  const USE_STRICT = {
    className: 'meta',
    relevance: 10,
    begin: /^\s*['"]use strict['"]/,
  };
  const KEYWORDS$1 = {
    $pattern: IDENT_RE,
    keyword: KEYWORDS.concat([
      'type',
      'interface',
      'public',
      'private',
      'protected',
      'implements',
      'declare',
      'abstract',
      'readonly',
      'enum',
      'override',
      'satisfies',
    ]),
    literal: LITERALS,
    built_in: BUILT_INS.concat(TYPES),
    'variable.language': BUILT_IN_VARIABLES,
  };
  const DECORATOR = {
    className: 'meta',
    begin: '@' + IDENT_RE$1,
  };
  const swapMode = (mode, label, replacement) => {
    const indx = mode.contains.findIndex((m) => m.label === label);
    if (indx === -1) throw new Error('can not find mode to replace');
    mode.contains.splice(indx, 1, replacement);
  };
  Object.assign(tsLanguage.keywords, KEYWORDS$1);
  tsLanguage.exports.PARAMS_CONTAINS.push(DECORATOR);
  const ATTRIBUTE_HIGHLIGHT = tsLanguage.contains.find((c) => c.scope === 'attr');
  const OPTIONAL_KEY_OR_ARGUMENT = Object.assign({}, ATTRIBUTE_HIGHLIGHT, {
    match: regex.concat(IDENT_RE$1, regex.lookahead(/\s*\?:/)),
  });
  tsLanguage.exports.PARAMS_CONTAINS.push([
    tsLanguage.exports.CLASS_REFERENCE,
    ATTRIBUTE_HIGHLIGHT,
    OPTIONAL_KEY_OR_ARGUMENT,
  ]);
  tsLanguage.contains = tsLanguage.contains.concat([
    DECORATOR,
    NAMESPACE,
    INTERFACE,
    OPTIONAL_KEY_OR_ARGUMENT,
  ]);
  swapMode(tsLanguage, 'shebang', hljs.SHEBANG());
  swapMode(tsLanguage, 'use_strict', USE_STRICT);
  const functionDeclaration = tsLanguage.contains.find((m) => m.label === 'func.def');
  functionDeclaration.relevance = 0;
  Object.assign(tsLanguage, {
    name: 'TypeScript',
    aliases: ['ts', 'tsx', 'mts', 'cts'],
  });
  return tsLanguage;
}
// node_modules/highlight.js/es/languages/xml.js
/** @type LanguageFn */
function xml(hljs) {
  const regex = hljs.regex;
  const TAG_NAME_RE = regex.concat(/[\p{L}_]/u, regex.optional(/[\p{L}0-9_.-]*:/u), /[\p{L}0-9_.-]*/u);
  const XML_IDENT_RE = /[\p{L}0-9._:-]+/u;
  const XML_ENTITIES = {
    className: 'symbol',
    begin: /&[a-z]+;|&#[0-9]+;|&#x[a-f0-9]+;/,
  };
  const XML_META_KEYWORDS = {
    begin: /\s/,
    contains: [
      {
        className: 'keyword',
        begin: /#?[a-z_][a-z1-9_-]+/,
        illegal: /\n/,
      },
    ],
  };
  const XML_META_PAR_KEYWORDS = hljs.inherit(XML_META_KEYWORDS, {
    begin: /\(/,
    end: /\)/,
  });
  const APOS_META_STRING_MODE = hljs.inherit(hljs.APOS_STRING_MODE, { className: 'string' });
  const QUOTE_META_STRING_MODE = hljs.inherit(hljs.QUOTE_STRING_MODE, { className: 'string' });
  const TAG_INTERNALS = {
    endsWithParent: true,
    illegal: /</,
    relevance: 0,
    contains: [
      {
        className: 'attr',
        begin: XML_IDENT_RE,
        relevance: 0,
      },
      {
        begin: /=\s*/,
        relevance: 0,
        contains: [
          {
            className: 'string',
            endsParent: true,
            variants: [
              {
                begin: /"/,
                end: /"/,
                contains: [XML_ENTITIES],
              },
              {
                begin: /'/,
                end: /'/,
                contains: [XML_ENTITIES],
              },
              { begin: /[^\s"'=<>`]+/ },
            ],
          },
        ],
      },
    ],
  };
  return {
    name: 'HTML, XML',
    aliases: ['html', 'xhtml', 'rss', 'atom', 'xjb', 'xsd', 'xsl', 'plist', 'wsf', 'svg'],
    case_insensitive: true,
    unicodeRegex: true,
    contains: [
      {
        className: 'meta',
        begin: /<![a-z]/,
        end: />/,
        relevance: 10,
        contains: [
          XML_META_KEYWORDS,
          QUOTE_META_STRING_MODE,
          APOS_META_STRING_MODE,
          XML_META_PAR_KEYWORDS,
          {
            begin: /\[/,
            end: /\]/,
            contains: [
              {
                className: 'meta',
                begin: /<![a-z]/,
                end: />/,
                contains: [
                  XML_META_KEYWORDS,
                  XML_META_PAR_KEYWORDS,
                  QUOTE_META_STRING_MODE,
                  APOS_META_STRING_MODE,
                ],
              },
            ],
          },
        ],
      },
      hljs.COMMENT(/<!--/, /-->/, { relevance: 10 }),
      {
        begin: /<!\[CDATA\[/,
        end: /\]\]>/,
        relevance: 10,
      },
      XML_ENTITIES,
      {
        className: 'meta',
        end: /\?>/,
        variants: [
          {
            begin: /<\?xml/,
            relevance: 10,
            contains: [QUOTE_META_STRING_MODE],
          },
          { begin: /<\?[a-z][a-z0-9]+/ },
        ],
      },
      {
        className: 'tag',
        begin: /<style(?=\s|>)/,
        end: />/,
        keywords: { name: 'style' },
        contains: [TAG_INTERNALS],
        starts: {
          end: /<\/style>/,
          returnEnd: true,
          subLanguage: 'css',
        },
      },
      {
        className: 'tag',
        begin: /<script(?=\s|>)/,
        end: />/,
        keywords: { name: 'script' },
        contains: [TAG_INTERNALS],
        starts: {
          end: /<\/script>/,
          returnEnd: true,
          subLanguage: 'javascript',
        },
      },
      {
        className: 'tag',
        begin: /<>|<\/>/,
      },
      {
        className: 'tag',
        begin: regex.concat(/</, regex.lookahead(regex.concat(TAG_NAME_RE, regex.either(/\/>/, />/, /\s/)))),
        end: /\/?>/,
        contains: [
          {
            className: 'name',
            begin: TAG_NAME_RE,
            relevance: 0,
            starts: TAG_INTERNALS,
          },
        ],
      },
      {
        className: 'tag',
        begin: regex.concat(/<\//, regex.lookahead(regex.concat(TAG_NAME_RE, />/))),
        contains: [
          {
            className: 'name',
            begin: TAG_NAME_RE,
            relevance: 0,
          },
          {
            begin: />/,
            relevance: 0,
            endsParent: true,
          },
        ],
      },
    ],
  };
}
// node_modules/highlight.js/es/languages/yaml.js
function yaml(hljs) {
  const LITERALS = 'true false yes no null';
  const URI_CHARACTERS = "[\\w#;/?:@&=+$,.~*'()[\\]]+";
  const KEY = {
    className: 'attr',
    variants: [
      { begin: /[\w*@][\w*@ :()\./-]*:(?=[ \t]|$)/ },
      { begin: /"[\w*@][\w*@ :()\./-]*":(?=[ \t]|$)/ },
      { begin: /'[\w*@][\w*@ :()\./-]*':(?=[ \t]|$)/ },
    ],
  };
  const TEMPLATE_VARIABLES = {
    className: 'template-variable',
    variants: [
      {
        begin: /\{\{/,
        end: /\}\}/,
      },
      {
        begin: /%\{/,
        end: /\}/,
      },
    ],
  };
  const SINGLE_QUOTE_STRING = {
    className: 'string',
    relevance: 0,
    begin: /'/,
    end: /'/,
    contains: [
      {
        match: /''/,
        scope: 'char.escape',
        relevance: 0,
      },
    ],
  };
  const STRING = {
    className: 'string',
    relevance: 0,
    variants: [
      {
        begin: /"/,
        end: /"/,
      },
      { begin: /\S+/ },
    ],
    contains: [hljs.BACKSLASH_ESCAPE, TEMPLATE_VARIABLES],
  };
  const CONTAINER_STRING = hljs.inherit(STRING, {
    variants: [
      {
        begin: /'/,
        end: /'/,
        contains: [
          {
            begin: /''/,
            relevance: 0,
          },
        ],
      },
      {
        begin: /"/,
        end: /"/,
      },
      { begin: /[^\s,{}[\]]+/ },
    ],
  });
  const TIMESTAMP = {
    className: 'number',
    begin:
      '\\b[0-9]{4}(-[0-9][0-9]){0,2}([Tt \\t][0-9][0-9]?(:[0-9][0-9]){2})?(\\.[0-9]*)?([ \\t])*(Z|[-+][0-9][0-9]?(:[0-9][0-9])?)?\\b',
  };
  const VALUE_CONTAINER = {
    end: ',',
    endsWithParent: true,
    excludeEnd: true,
    keywords: LITERALS,
    relevance: 0,
  };
  const OBJECT = {
    begin: /\{/,
    end: /\}/,
    contains: [VALUE_CONTAINER],
    illegal: '\\n',
    relevance: 0,
  };
  const ARRAY = {
    begin: '\\[',
    end: '\\]',
    contains: [VALUE_CONTAINER],
    illegal: '\\n',
    relevance: 0,
  };
  const MODES = [
    KEY,
    {
      className: 'meta',
      begin: '^---\\s*$',
      relevance: 10,
    },
    {
      className: 'string',
      begin: '[\\|>]([1-9]?[+-])?[ ]*\\n( +)[^ ][^\\n]*\\n(\\2[^\\n]+\\n?)*',
    },
    {
      begin: '<%[%=-]?',
      end: '[%-]?%>',
      subLanguage: 'ruby',
      excludeBegin: true,
      excludeEnd: true,
      relevance: 0,
    },
    {
      className: 'type',
      begin: '!\\w+!' + URI_CHARACTERS,
    },
    {
      className: 'type',
      begin: '!<' + URI_CHARACTERS + '>',
    },
    {
      className: 'type',
      begin: '!' + URI_CHARACTERS,
    },
    {
      className: 'type',
      begin: '!!' + URI_CHARACTERS,
    },
    {
      className: 'meta',
      begin: '&' + hljs.UNDERSCORE_IDENT_RE + '$',
    },
    {
      className: 'meta',
      begin: '\\*' + hljs.UNDERSCORE_IDENT_RE + '$',
    },
    {
      className: 'bullet',
      begin: '-(?=[ ]|$)',
      relevance: 0,
    },
    hljs.HASH_COMMENT_MODE,
    {
      beginKeywords: LITERALS,
      keywords: { literal: LITERALS },
    },
    TIMESTAMP,
    {
      className: 'number',
      begin: hljs.C_NUMBER_RE + '\\b',
      relevance: 0,
    },
    OBJECT,
    ARRAY,
    SINGLE_QUOTE_STRING,
    STRING,
  ];
  const VALUE_MODES = [...MODES];
  VALUE_MODES.pop();
  VALUE_MODES.push(CONTAINER_STRING);
  VALUE_CONTAINER.contains = VALUE_MODES;
  return {
    name: 'YAML',
    case_insensitive: true,
    aliases: ['yml'],
    contains: MODES,
  };
}
// node_modules/marked/lib/marked.esm.js
/**
 * marked v18.2.1 - a markdown parser
 * Copyright (c) 2018-2026, MarkedJS. (MIT License)
 * Copyright (c) 2011-2018, Christopher Jeffrey. (MIT License)
 * https://github.com/markedjs/marked
 */
/**
 * DO NOT EDIT THIS FILE
 * The code in this file is generated from files in ./src/
 */
function G() {
  return {
    async: !1,
    breaks: !1,
    extensions: null,
    gfm: !0,
    hooks: null,
    pedantic: !1,
    renderer: null,
    silent: !1,
    tokenizer: null,
    walkTokens: null,
  };
}
var S = G();
function ue(l) {
  S = l;
}
var q = { exec: () => null };
function D(l) {
  let e = [];
  return (t) => {
    let n = Math.max(0, Math.min(3, t - 1)),
      r = e[n];
    return (r || ((r = l(n)), (e[n] = r)), r);
  };
}
function g(l, e = '') {
  let t = typeof l == 'string' ? l : l.source,
    n = {
      replace: (r, s) => {
        let o = typeof s == 'string' ? s : s.source;
        return ((o = o.replace(O.caret, '$1')), (t = t.replace(r, o)), n);
      },
      getRegex: () => new RegExp(t, e),
    };
  return n;
}
var _e = ((l = '') => {
  try {
    return !!new RegExp('(?<=1)(?<!1)' + l);
  } catch {
    return !1;
  }
})();
var O = {
  codeRemoveIndent: /^(?: {0,3}\t| {1,4})/gm,
  listInterruptsParagraph: /^ {0,3}(?:[*+-]|1[.)])[ \t]+[^ \t\n]/,
  outputLinkReplace: /\\([\[\]])/g,
  indentCodeCompensation: /^(\s+)(?:```)/,
  beginningSpace: /^\s+/,
  endingHash: /#$/,
  startingSpaceChar: /^ /,
  endingSpaceChar: / $/,
  endingSpaceTabChar: /[ \t]$/,
  nonSpaceChar: /[^ ]/,
  newLineCharGlobal: /\n/g,
  tabCharGlobal: /\t/g,
  leadingSpaceTab: /^[ \t]+/,
  multipleSpaceGlobal: /\s+/g,
  blankLine: /^[ \t]*$/,
  doubleBlankLine: /\n[ \t]*\n[ \t]*$/,
  blockquoteStart: /^ {0,3}>/,
  blockquoteSetextReplace: /\n {0,3}((?:=+|-+)[ \t]*)(?=\n|$)/g,
  blockquoteSetextReplace2: /^ {0,3}>[ \t]?/gm,
  blockquoteMarkerWhitespace: /^( {0,3}>)(\t[ \t]*)/gm,
  nestedBlockMarker: /^ {0,3}(?:(?:[*+-]|\d{1,9}[.)])(?: |$)|> ?)/,
  listReplaceNesting: /^ {1,4}(?=( {4})*[^ ])/g,
  listIsTask: /^\[[ xX]\][ \t]+\S/,
  listReplaceTask: /^\[[ xX]\][ \t]+/,
  listTaskCheckbox: /\[[ xX]\]/,
  anyLine: /\n.*\n/,
  hrefBrackets: /^<(.*)>$/,
  tableDelimiter: /[:|]/,
  tableAlignChars: /^\||\| *$/g,
  tableRowBlankLine: /\n[ \t]*$/,
  tableAlignRight: /^ *-+: *$/,
  tableAlignCenter: /^ *:-+: *$/,
  tableAlignLeft: /^ *:-+ *$/,
  startATag: /^<a /i,
  endATag: /^<\/a>/i,
  startPreScriptTag: /^<(pre|code|kbd|script)(\s|>)/i,
  endPreScriptTag: /^<\/(pre|code|kbd|script)(\s|>)/i,
  startAngleBracket: /^</,
  endAngleBracket: />$/,
  pedanticHrefTitle: /^([^'"]*[^\s])\s+(['"])(.*)\2/,
  unicodeAlphaNumeric: /[\p{L}\p{N}]/u,
  numericCharacterReference: /&#(?:(\d{1,7})|[Xx]([A-Fa-f0-9]{1,6}));/,
  numericCharacterReferenceOrAmpersand:
    /&#(?:(\d{1,7})|[Xx]([A-Fa-f0-9]{1,6}));|&(?!(#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|\w+);)/g,
  escapeTest: /[&<>"']/,
  escapeReplace: /[&<>"']/g,
  escapeTestNoEncode: /[<>"']|&(?!(#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|\w+);)/,
  escapeReplaceNoEncode: /[<>"']|&(?!(#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|\w+);)/g,
  caret: /(^|[^\[])\^/g,
  percentDecode: /%25/g,
  findPipe: /\|/g,
  splitPipe: / \|/,
  slashPipe: /\\\|/g,
  carriageReturn: /\r\n|\r/g,
  spaceLine: /^ +$/gm,
  notSpaceStart: /^\S*/,
  endingNewline: /\n$/,
  listItemRegex: (l) => new RegExp(`^( {0,3}${l})((?:[	 ][^\\n]*)?(?:\\n|$))`),
  nextBulletRegex: D((l) => new RegExp(`^ {0,${l}}(?:[*+-]|\\d{1,9}[.)])((?:[ 	][^\\n]*)?(?:\\n|$))`)),
  hrRegex: D((l) => new RegExp(`^ {0,${l}}((?:-[ 	]*){3,}|(?:_[ 	]*){3,}|(?:\\*[ 	]*){3,})(?:\\n+|$)`)),
  fencesBeginRegex: D((l) => new RegExp(`^ {0,${l}}(?:\`\`\`|~~~)`)),
  headingBeginRegex: D((l) => new RegExp(`^ {0,${l}}#{1,6}(?:\\s|$)`)),
  pedanticHeadingBeginRegex: D((l) => new RegExp(`^ {0,${l}}#`)),
  htmlBeginRegex: D(
    (l) =>
      new RegExp(
        `^ {0,${l}}(?:</?(?:${he})(?:[ \\t]+|$|/?>)|<(?:(?:script|pre|style|textarea)(?:[\\s>]|$)|!--)|<\\?|<![A-Za-z]|<!\\[CDATA\\[)`,
        'i',
      ),
  ),
  blockquoteBeginRegex: D((l) => new RegExp(`^ {0,${l}}>`)),
  nestedContainerMarkers: /^(?: {0,3}(?:(?:[*+-]|\d{1,9}[.)])[ \t]+|>[ \t]?))+/,
};
var Ge = /^(?:[ \t]*(?:\n|$))+/;
var Ne = /^((?: {4}| {0,3}\t)[^\n]+(?:\n(?:[ \t]*(?:\n|$))*)?)+/;
var Fe =
  /^ {0,3}(`{3,}(?=[^`\n]*(?:\n|$))|~{3,})([^\n]*)(?:\n|$)(?:|([\s\S]*?)(?:\n|$))(?: {0,3}(?:(?=`)\1`*|(?=~)\1~*) *(?=\n|$)|$)/;
var V = /^ {0,3}((?:-[\t ]*){3,}|(?:_[ \t]*){3,}|(?:\*[ \t]*){3,})(?:\n+|$)/;
var Qe = /^ {0,3}(#{1,6})(?=\s|$)(.*)(?:\n+|$)/;
var ce = / {0,3}(?:[*+-]|\d{1,9}[.)])/;
var he =
  'address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|meta|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul';
var J = g(
  ' {0,3}(?:</?(?:tag)(?:[ \\t]+|\\n|/?>)|<(?:(?:script|pre|style|textarea)(?:[\\s>]|$)|!--)|<\\?|<![A-Za-z]|<!\\[CDATA\\[)',
)
  .replace('tag', he)
  .getRegex();
var $e =
  /^(?!bull |blockCode|fences|blockquote|heading|html|table)((?:.|\n(?!\s*?\n|bull |fences|blockquote|heading|hr|html|table))+?)\n {0,3}(=+|-+)[ \t]*(?:\n+|$)/;
var Le = g($e)
  .replace(/bull/g, ce)
  .replace(/blockCode/g, /(?: {4}| {0,3}\t)/)
  .replace(/fences/g, / {0,3}(?:`{3,}|~{3,})/)
  .replace(/blockquote/g, / {0,3}>/)
  .replace(/heading/g, / {0,3}#{1,6}(?:\s|$)/)
  .replace(/hr/g, / {0,3}(?:(?:-[\t ]*){3,}|(?:_[ \t]*){3,}|(?:\*[ \t]*){3,})(?:\n+|$)/)
  .replace(/\|table/g, '')
  .replace(/html/g, J)
  .getRegex();
var We = g($e)
  .replace(/bull/g, ce)
  .replace(/blockCode/g, /(?: {4}| {0,3}\t)/)
  .replace(/fences/g, / {0,3}(?:`{3,}|~{3,})/)
  .replace(/blockquote/g, / {0,3}>/)
  .replace(/heading/g, / {0,3}#{1,6}(?:\s|$)/)
  .replace(/hr/g, / {0,3}(?:(?:-[\t ]*){3,}|(?:_[ \t]*){3,}|(?:\*[ \t]*){3,})(?:\n+|$)/)
  .replace(/table/g, / {0,3}\|?(?:[:\- ]*\|)+[\:\- ]*\n/)
  .replace(/html/g, J)
  .getRegex();
var de = /^([^\n]+(?:\n(?!hr|heading|lheading|blockquote|fences|list|html|table|[ \t]+\n)[^\n]+)*)/;
var Ue = /^[^\n]+/;
var ge = /(?!\s*\])(?:\\[\s\S]|[^\[\]\\\n]|\n(?![ \t]*\n))+/;
var Ke = g(
  /^ {0,3}\[(label)\]: *(?:\n[ \t]*)?([^<\s][^\s]*|<(?:\\.|[^\n<>\\])*>)(?:(?: +(?:\n[ \t]*)?| *\n[ \t]*)(title))? *(?:\n+|$)/,
)
  .replace('label', ge)
  .replace('title', /(?:"(?:\\[\s\S]|[^"\\])*"|'(?:\\[\s\S]|[^'\\\n]|\n(?!\n))*'|\((?:\\[\s\S]|[^()\\])*\))/)
  .getRegex();
var Xe = g(/^(bull)([ \t][^\n]*?)?(?:\n|$)/)
  .replace(/bull/g, ce)
  .getRegex();
var ke = /<!--(?:-?>|[\s\S]*?(?:-->|$))/;
var Ve = g(
  '^ {0,3}(?:<(script|pre|style|textarea)[\\s>][\\s\\S]*?(?:</\\1>[^\\n]*\\n*|$)|comment[^\\n]*(\\n+|$)|<\\?[\\s\\S]*?(?:\\?>[^\\n]*\\n*|$)|<![A-Z][\\s\\S]*?(?:>[^\\n]*\\n*|$)|<!\\[CDATA\\[[\\s\\S]*?(?:\\]\\]>[^\\n]*\\n*|$)|</?(tag)(?:[ \\t]+|\\n|/?>|$)[\\s\\S]*?(?:(?:\\n[ 	]*)+\\n|$)|<(?!(?:script|pre|style|textarea)(?![a-z0-9-]))([a-z][a-z0-9-]*)(?:attribute)*?[ \\t]*/?>(?=[ \\t]*(?:\\n|$))[\\s\\S]*?(?:(?:\\n[ 	]*)+\\n|$)|</[a-z][a-z0-9-]*\\s*>(?=[ \\t]*(?:\\n|$))[\\s\\S]*?(?:(?:\\n[ 	]*)+\\n|$))',
  'i',
)
  .replace('comment', ke)
  .replace('tag', he)
  .replace(
    'attribute',
    /[ \t]+[a-zA-Z:_][\w.:-]*(?:[ \t]*=[ \t]*"[^"\n]*"|[ \t]*=[ \t]*'[^'\n]*'|[ \t]*=[ \t]*[^\s"'=<>`]+)?/,
  )
  .getRegex();
var Ce = (l) =>
  g(de)
    .replace('hr', V)
    .replace('heading', ' {0,3}#{1,6}(?:\\s|$)')
    .replace('|lheading', '')
    .replace('|table', '')
    .replace('blockquote', ' {0,3}>')
    .replace('fences', ' {0,3}(?:`{3,}(?=[^`\\n]*(?:\\n|$))|~~~)[^\\n]*(?:\\n|$)')
    .replace('list', l)
    .replace('html', J)
    .getRegex();
var Je = Ce(/ {0,3}(?:[*+-]|1[.)])[ \t]+[^ \t\n]/);
var Ye = Ce(/ {0,3}(?:[*+-]|\d{1,9}[.)])(?:[ \t]|\n|$)/);
var fe = {
  blockquote: g(/^( {0,3}> ?(?:(?![ \t]*(?:\n|$))(paragraph)|[^\n]*)(?:\n|$))+/)
    .replace('paragraph', Ye)
    .getRegex(),
  code: Ne,
  def: Ke,
  fences: Fe,
  heading: Qe,
  hr: V,
  html: Ve,
  lheading: Le,
  list: Xe,
  newline: Ge,
  paragraph: Je,
  table: q,
  text: Ue,
};
var Pe = g(
  '^ *([^\\n ].*)\\n {0,3}((?:\\| *)?:?-+:? *(?:\\| *:?-+:? *)*(?:\\| *)?)(?:\\n((?:(?! *\\n|hr|heading|blockquote|code|fences|list|html).*(?:\\n|$))*)\\n*|$)',
)
  .replace('hr', V)
  .replace('heading', ' {0,3}#{1,6}(?:\\s|$)')
  .replace('blockquote', ' {0,3}>')
  .replace('code', '(?: {4}| {0,3}	)[^\\n]')
  .replace('fences', ' {0,3}(?:`{3,}(?=[^`\\n]*(?:\\n|$))|~~~)[^\\n]*(?:\\n|$)')
  .replace('list', ' {0,3}(?:[*+-]|1[.)])[ \\t]')
  .replace('html', J)
  .getRegex();
var tt = {
  ...fe,
  lheading: We,
  table: Pe,
  paragraph: g(de)
    .replace('hr', V)
    .replace('heading', ' {0,3}#{1,6}(?:\\s|$)')
    .replace('|lheading', '')
    .replace('table', Pe)
    .replace('blockquote', ' {0,3}>')
    .replace('fences', ' {0,3}(?:`{3,}(?=[^`\\n]*(?:\\n|$))|~~~)[^\\n]*(?:\\n|$)')
    .replace('list', ' {0,3}(?:[*+-]|1[.)])[ \\t]+[^ \\t\\n]')
    .replace('html', J)
    .getRegex(),
};
var nt = {
  ...fe,
  html: g(
    `^ *(?:comment(?: *\\n|\\s*$)|<(tag)[\\s\\S]+?</\\1>(?: *\\n{2,}|\\s*$)|<tag(?:"[^"]*"|'[^']*'|\\s[^'"/>\\s]*)*?/?>(?: *\\n{2,}|\\s*$))`,
  )
    .replace('comment', ke)
    .replace(
      /tag/g,
      '(?!(?:a|em|strong|small|s|cite|q|dfn|abbr|data|time|code|var|samp|kbd|sub|sup|i|b|u|mark|ruby|rt|rp|bdi|bdo|span|br|wbr|ins|del|img)\\b)\\w+(?!:|[^\\w\\s@]*@)\\b',
    )
    .getRegex(),
  def: /^ *\[([^\]]+)\]: *<?([^\s>]+)>?(?: +(["(][^\n]+[")]))? *(?:\n+|$)/,
  heading: /^(#{1,6})(.*)(?:\n+|$)/,
  fences: q,
  lheading: /^(.+?)\n {0,3}(=+|-+) *(?:\n+|$)/,
  paragraph: g(de)
    .replace('hr', V)
    .replace(
      'heading',
      ` *#{1,6} *[^
]`,
    )
    .replace('|table', '')
    .replace('blockquote', ' {0,3}>')
    .replace('|fences', '')
    .replace('|list', '')
    .replace('|html', '')
    .replace('|tag', '')
    .replace('lheading', Le)
    .getRegex(),
};
var rt = /^\\([!"#$%&'()*+,\-./:;<=>?@\[\]\\^_`{|}~])/;
var st = /^(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/;
var Ie = /^( {2,}|\\)\n(?!\s*$)[ \t]*/;
var it = /^(`+|[^`])(?:(?= {2,}\n)|[\s\S]*?(?:(?=[\\<!\[`*_]|\b_|$)|[^ ](?= {2,}\n)))/;
var L = /[\p{P}\p{S}]/u;
var N = /[\s\p{P}\p{S}]/u;
var Y = /[^\s\p{P}\p{S}]/u;
var ot = g(/^((?![*_])punctSpace)/, 'u')
  .replace(/punctSpace/g, N)
  .getRegex();
var at = /[\p{Pi}\p{Ps}"']/u;
var Ae = /(?!~)[\p{P}\p{S}]/u;
var lt = /(?!~)[\s\p{P}\p{S}]/u;
var ut = /(?:[^\s\p{P}\p{S}]|~)/u;
var pt = g(/link|precode-code|html/, 'g')
  .replace(
    'link',
    /\[(?:[^\[\]`]|(?<a>`+)[^`]+\k<a>(?!`))*?\]\((?:\\[\s\S]|[^\\\(\)]|\((?:\\[\s\S]|[^\\\(\)])*\))*\)/,
  )
  .replace('precode-', _e ? '(?<!`)()' : '(^^|[^`])')
  .replace('code', /(?<b>`+)[^`]+\k<b>(?!`)/)
  .replace('html', /<(?! )[^<>]*?>/)
  .getRegex();
var Ee = /^(?:\*+(?:((?!\*)punct)|([^\s*]))?)|^_+(?:((?!_)punct)|([^\s_]))?/;
var ct = g(Ee, 'u').replace(/punct/g, L).getRegex();
var ht = g(Ee, 'u').replace(/punct/g, Ae).getRegex();
var gt = g(/^(?:\*+(?:((?!\*)(?!openQuote)punct)|([^\s*]))?)|^_+(?:((?!_)(?!openQuote)punct)|([^\s_]))?/, 'u')
  .replace(/openQuote/g, at)
  .replace(/punct/g, L)
  .getRegex();
var ze =
  '^[^_*]*?__[^_*]*?\\*[^_*]*?(?=__)|[^*]+(?=[^*])|(?!\\*)punct(\\*+)(?=[\\s]|$)|notPunctSpace(\\*+)(?!\\*)(?=punctSpace|$)|(?!\\*)punctSpace(\\*+)(?=notPunctSpace)|[\\s](\\*+)(?!\\*)(?=punct)|(?!\\*)punct(\\*+)(?!\\*)(?=punct)|notPunctSpace(\\*+)(?=notPunctSpace)';
var kt = g(ze, 'gu')
  .replace(/notPunctSpace/g, Y)
  .replace(/punctSpace/g, N)
  .replace(/punct/g, L)
  .getRegex();
var ft = g(ze, 'gu')
  .replace(/notPunctSpace/g, ut)
  .replace(/punctSpace/g, lt)
  .replace(/punct/g, Ae)
  .getRegex();
var xt = g(
  '^[^_*]*?__[^_*]*?\\*[^_*]*?(?=__)|[^*]+(?=[^*])|(?!\\*)punct(\\*+)(?=[\\s]|$)|notPunctSpace(\\*+)(?!\\*)(?=punctSpace|$)|(?!\\*)[\\s](\\*+)(?=notPunctSpace)|[\\s](\\*+)(?!\\*)(?=punct)|(?!\\*)punct(\\*+)(?!\\*)(?=punct)|(?:(?!\\*)punct|notPunctSpace)(\\*+)(?!\\*)(?=notPunctSpace)',
  'gu',
)
  .replace(/notPunctSpace/g, Y)
  .replace(/punctSpace/g, N)
  .replace(/punct/g, L)
  .getRegex();
var bt = g(
  '^[^_*]*?\\*\\*[^_*]*?_[^_*]*?(?=\\*\\*)|[^_]+(?=[^_])|(?!_)punct(_+)(?=[\\s]|$)|notPunctSpace(_+)(?!_)(?=punctSpace|$)|(?!_)punctSpace(_+)(?=notPunctSpace)|[\\s](_+)(?!_)(?=punct)|(?!_)punct(_+)(?!_)(?=punct)',
  'gu',
)
  .replace(/notPunctSpace/g, Y)
  .replace(/punctSpace/g, N)
  .replace(/punct/g, L)
  .getRegex();
var Tt = g(
  '^[^_*]*?\\*\\*[^_*]*?_[^_*]*?(?=\\*\\*)|[^_]+(?=[^_])|(?!_)punct(_+)(?=[\\s]|$)|notPunctSpace(_+)(?!_)(?=punctSpace|$)|(?!_)[\\s](_+)(?=notPunctSpace)|[\\s](_+)(?!_)(?=punct)|(?!_)punct(_+)(?!_)(?=punct)|(?:(?!_)punct|notPunctSpace)(_+)(?!_)(?=notPunctSpace)',
  'gu',
)
  .replace(/notPunctSpace/g, Y)
  .replace(/punctSpace/g, N)
  .replace(/punct/g, L)
  .getRegex();
var Ot = g(/^~~?(?:((?!~)punct)|[^\s~])/, 'u')
  .replace(/punct/g, L)
  .getRegex();
var Pt = g(
  '^[^~]+(?=[^~])|(?!~)punct(~~?)(?=[\\s]|$)|notPunctSpace(~~?)(?!~)(?=punctSpace|$)|(?!~)punctSpace(~~?)(?=notPunctSpace)|[\\s](~~?)(?!~)(?=punct)|(?!~)punct(~~?)(?!~)(?=punct)|notPunctSpace(~~?)(?=notPunctSpace)',
  'gu',
)
  .replace(/notPunctSpace/g, Y)
  .replace(/punctSpace/g, N)
  .replace(/punct/g, L)
  .getRegex();
var yt = g(/\\(punct)/, 'gu')
  .replace(/punct/g, L)
  .getRegex();
var St = g(/(`+)(?:[^`]|[^`][\s\S]*?[^`])\1(?!`)|`+|\\(punct)/, 'gu')
  .replace(/punct/g, L)
  .getRegex();
var _t = g(/^<(scheme:[^\s\x00-\x1f<>]*|email)>/)
  .replace('scheme', /[a-zA-Z][a-zA-Z0-9+.-]{1,31}/)
  .replace(
    'email',
    /[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+(@)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+(?![-_])/,
  )
  .getRegex();
var $t = g(ke).replace('(?:-->|$)', '-->').getRegex();
var Lt = g(
  '^comment|^</[a-zA-Z][a-zA-Z0-9-]*\\s*>|^<[a-zA-Z][a-zA-Z0-9-]*(?:attribute)*?\\s*/?>|^<\\?[\\s\\S]*?\\?>|^<![a-zA-Z]+\\s[\\s\\S]*?>|^<!\\[CDATA\\[[\\s\\S]*?\\]\\]>',
)
  .replace('comment', $t)
  .replace('attribute', /\s+[a-zA-Z:_][\w.:-]*(?:\s*=\s*"[^"]*"|\s*=\s*'[^']*'|\s*=\s*[^\s"'=<>`]+)?/)
  .getRegex();
var Me = /\[(?:\\[\s\S]|[^\[\]\\])*\]/;
var ie = g(/(?:\[(?:brackets|\\[\s\S]|[^\[\]\\])*\]|\\[\s\S]|`+(?!`)[^`]*?`+(?!`)|``+(?=\])|[^\[\]\\`])*?/)
  .replace('brackets', Me)
  .getRegex();
var Ct = g(/^!?\[(label)\]\([ \t\n]*(href)(?:(?:[ \t]+(?:\n[ \t]*)?|\n[ \t]*)(title))?[ \t\n]*\)/)
  .replace('label', ie)
  .replace('href', /<(?:\\.|[^\n<>\\])*>|(?!<)[^ \t\n\x00-\x1f]+|(?=\))/)
  .replace('title', /"(?:\\[\s\S]|[^"\\])*"|'(?:\\[\s\S]|[^'\\])*'|\((?:\\[\s\S]|[^)\\])*\)/)
  .getRegex();
var It = g(/^!?\[(label)\]\[(ref)\]/)
  .replace('label', ie)
  .replace('ref', ge)
  .getRegex();
var At = g(/^!?\[(ref)\](?:\[\])?/)
  .replace('ref', ge)
  .getRegex();
var ye = /(?!\s*\])(?:\\[\s\S]|[^\[\]\\]){1,999}/;
var Et = g(
  /(?:[^\[\]\\`]*(?:\[(?:brackets|\\[\s\S]|[^\[\]\\])*\]|\\[\s\S]|`+(?!`)[^`]*?`+(?!`)|``+(?=\]))){0,999}?[^\[\]\\`]*?/,
)
  .replace('brackets', Me)
  .getRegex();
var zt = g('reflink|nolink(?!\\()', 'g')
  .replace(
    'reflink',
    g(/^!?\[(label)\]\[(ref)\]/)
      .replace('label', Et)
      .replace('ref', ye)
      .getRegex(),
  )
  .replace(
    'nolink',
    g(/^!?\[(ref)\](?:\[\])?/)
      .replace('ref', ye)
      .getRegex(),
  )
  .getRegex();
var Se = /[hH][tT][tT][pP][sS]?|[fF][tT][pP]/;
var Bt = g(/(?:mailto:email|xmpp:email(?:\/[A-Za-z0-9@.]+)?)/)
  .replace(/email/g, /[A-Za-z0-9._+-]+@[a-zA-Z0-9-_]+(?:\.[a-zA-Z0-9-_]*[a-zA-Z0-9])+(?![\w-])/)
  .getRegex();
var me = {
  _backpedal: q,
  anyPunctuation: yt,
  anyPunctuationOutsideCode: St,
  autolink: _t,
  blockSkip: pt,
  br: Ie,
  code: st,
  del: q,
  delLDelim: q,
  delRDelim: q,
  emStrongLDelim: ct,
  emStrongRDelimAst: kt,
  emStrongRDelimUnd: bt,
  escape: rt,
  link: Ct,
  nolink: At,
  punctuation: ot,
  reflink: It,
  reflinkSearch: zt,
  tag: Lt,
  text: it,
  url: q,
};
var Dt = {
  ...me,
  emStrongLDelim: gt,
  emStrongRDelimAst: xt,
  emStrongRDelimUnd: Tt,
  link: g(/^!?\[(label)\]\((.*?)\)/)
    .replace('label', ie)
    .getRegex(),
  reflink: g(/^!?\[(label)\]\s*\[([^\]]*)\]/)
    .replace('label', ie)
    .getRegex(),
};
var pe = {
  ...me,
  emStrongRDelimAst: ft,
  emStrongLDelim: ht,
  delLDelim: Ot,
  delRDelim: Pt,
  url: g(/^emailProtocol|^((?:protocol):\/\/|www\.)(?:[a-zA-Z0-9\-]+\.?)+[^\s<]*|^email/)
    .replace('emailProtocol', Bt)
    .replace('protocol', Se)
    .replace('email', /[A-Za-z0-9._+-]+(@)[a-zA-Z0-9-_]+(?:\.[a-zA-Z0-9-_]*[a-zA-Z0-9])+(?![\w-])/)
    .getRegex(),
  _backpedal: /(?:[^?!.,:;*_'"~()&]+|\([^)]*\)|&(?![a-zA-Z0-9]+;$)|[?!.,:;*_'"~)]+(?!$))+/,
  del: /^(~~?)(?=[^\s~])((?:\\[\s\S]|[^\\])*?(?:\\[\s\S]|[^\s~\\]))\1(?=[^~]|$)/,
  text: g(
    /^(?:[^a-zA-Z0-9](?=emailProtocol)|(`+|~+|[^`~])(?:(?=[`~])|(?= {2,}\n)|(?=[a-zA-Z0-9.!#$%&'*+\/=?_`{\|}~-]+@)|[\s\S]*?(?:(?=[\\<!\[`*~_]|\b_|protocol:\/\/|wwwStart|$)|[^ ](?= {2,}\n)|[^a-zA-Z0-9](?=emailProtocol)|[^a-zA-Z0-9.!#$%&'*+\/=?_`{\|}~-](?=[a-zA-Z0-9.!#$%&'*+\/=?_`{\|}~-]+@))))/,
  )
    .replace('protocol', Se)
    .replace(/emailProtocol/g, /(?:mailto|xmpp):/)
    .replace('wwwStart', _e ? '(?<![^\\s*_~(])www\\.' : 'www\\.')
    .getRegex(),
};
var qt = {
  ...pe,
  br: g(Ie).replace('{2,}', '*').getRegex(),
  text: g(pe.text)
    .replace('\\b_', '\\b_| {2,}\\n')
    .replace(/\{2,\}/g, '*')
    .getRegex(),
};
var ee = {
  normal: fe,
  gfm: tt,
  pedantic: nt,
};
var F = {
  normal: me,
  gfm: pe,
  breaks: qt,
  pedantic: Dt,
};
var vt = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
var Be = (l) => vt[l];
function y(l, e) {
  if (e) {
    if (O.escapeTest.test(l)) return l.replace(O.escapeReplace, Be);
  } else if (O.escapeTestNoEncode.test(l)) return l.replace(O.escapeReplaceNoEncode, Be);
  return l;
}
function De(l) {
  return O.numericCharacterReference.test(l)
    ? l.replace(O.numericCharacterReferenceOrAmpersand, (e, t, n) => {
        if (t === void 0 && n === void 0) return '&amp;';
        let r = t === void 0 ? Number.parseInt(n, 16) : Number.parseInt(t, 10);
        return r === 0 || r > 1114111 || (r >= 55296 && r <= 57343)
          ? '�'
          : r === 38
            ? '&amp;'
            : String.fromCodePoint(r);
      })
    : l;
}
function xe(l) {
  try {
    l = encodeURI(l).replace(O.percentDecode, '%');
  } catch {
    return null;
  }
  return l;
}
function be(l, e) {
  let n = l
      .replace(O.findPipe, (s, o, i) => {
        let a = !1,
          c = o;
        for (; --c >= 0 && i[c] === '\\';) a = !a;
        return a ? '|' : ' |';
      })
      .split(O.splitPipe),
    r = 0;
  if ((n[0].trim() || n.shift(), n.length > 0 && !n.at(-1)?.trim() && n.pop(), e))
    if (n.length > e) n.splice(e);
    else for (; n.length < e;) n.push('');
  for (; r < n.length; r++) n[r] = n[r].trim().replace(O.slashPipe, '|');
  return n;
}
function C(l, e, t) {
  let n = l.length;
  if (n === 0) return '';
  let r = 0;
  for (; r < n;) {
    let s = l.charAt(n - r - 1);
    if (s === e && !t) r++;
    else if (s !== e && t) r++;
    else break;
  }
  return l.slice(0, n - r);
}
function Re(l) {
  let e = l.split(`
`),
    t = e.length - 1;
  for (; t >= 0 && O.blankLine.test(e[t]);) t--;
  return e.length - t <= 2
    ? l
    : e.slice(0, t + 1).join(`
`);
}
function W(l) {
  return l.trim().replace(O.multipleSpaceGlobal, ' ').toLowerCase().toUpperCase().toLowerCase();
}
function Te(l, e) {
  if (l.indexOf(e[0]) === -1 && l.indexOf(e[1]) === -1) return -1;
  let t = 0;
  for (let n = 0; n < l.length; n++)
    if (l[n] === '\\') n++;
    else if (l[n] === e[0]) t++;
    else if (l[n] === e[1] && (t--, t < 0)) return n;
  return t > 0 ? -2 : -1;
}
var Q = /* @__PURE__ */ new WeakMap();
function Oe(l) {
  let e = {
      '*': -1,
      _: -1,
    },
    t = -1,
    n = l.length;
  for (let r = 0; r < n; r++) {
    let s = l[r];
    if (s !== '*' && s !== '_' && s !== '~') continue;
    let o =
        r === 0
          ? `
`
          : l[r - 1],
      i = r + 1;
    for (; i < n && l[i] === s;) i++;
    (o !== ' ' &&
      o !== '	' &&
      o !==
        `
` &&
      o !== '\r' &&
      o !== '\f' &&
      (s === '~' ? (t = r) : (e[s] = r)),
      (r = i - 1));
  }
  return {
    maskedSrc: l,
    lastPossibleEmStrongCloserIndex: e,
    lastPossibleDelCloserIndex: t,
  };
}
function qe(l, e) {
  let t = Oe(e),
    n = Q.get(l);
  n ? n.push(t) : Q.set(l, [t]);
}
function ve(l) {
  let e = Q.get(l);
  e && (e.pop(), e.length === 0 && Q.delete(l));
}
function oe(l, e, t) {
  let n = Q.get(l)?.at(-1);
  return n && n.maskedSrc === e
    ? n.lastPossibleEmStrongCloserIndex[t]
    : Oe(e).lastPossibleEmStrongCloserIndex[t];
}
function ae(l, e) {
  let t = Q.get(l)?.at(-1);
  return t && t.maskedSrc === e ? t.lastPossibleDelCloserIndex : Oe(e).lastPossibleDelCloserIndex;
}
function te(l, e = 0) {
  let t = e,
    n = '';
  for (let r of l)
    if (r === '	') {
      let s = 4 - (t % 4);
      ((n += ' '.repeat(s)), (t += s));
    } else ((n += r), t++);
  return n;
}
function Ht(l, e) {
  let t = '';
  for (let n = 0; n < l.length; n++) {
    if (l[n] === '`') {
      let r = e.inline.code.exec(l.slice(n));
      if (r) {
        ((t += r[0]), (n += r[0].length - 1));
        continue;
      }
    }
    if (l[n] === '\\' && (l[n + 1] === '[' || l[n + 1] === ']')) {
      ((t += l[n + 1]), n++);
      continue;
    }
    t += l[n];
  }
  return t;
}
function He(l, e, t, n, r) {
  let s = e.href,
    o = e.title || null,
    i = Ht(l[1], r),
    a = l[0].charAt(0) === '!',
    c = n.state.inLink,
    u = n.state.linkEmitted,
    d = n.state.inRawBlock;
  ((n.state.inLink = !0), (n.state.linkEmitted = !1));
  let h = n.inlineTokens(i),
    p = n.state.linkEmitted;
  if (((n.state.linkEmitted = u), (n.state.inLink = c), !a)) {
    if (p) {
      n.state.inRawBlock = d;
      return;
    }
    n.state.linkEmitted = !0;
  }
  return {
    type: a ? 'image' : 'link',
    raw: t,
    href: s,
    title: o,
    text: i,
    tokens: h,
  };
}
function Zt(l, e, t) {
  let n = l.match(t.other.indentCodeCompensation);
  if (n === null) return e;
  let r = n[1];
  return e
    .split(
      `
`,
    )
    .map((s) => {
      let o = s.match(t.other.beginningSpace);
      if (o === null) return s;
      let [i] = o;
      return s.slice(Math.min(i.length, r.length));
    }).join(`
`);
}
function Ze(l, e, t, n) {
  if (!e.includes('<')) return !1;
  for (let r = 0; r < e.length; r++) {
    if (e[r] === '\\') {
      r++;
      continue;
    }
    if (e[r] === '`') {
      let i = n.inline.code.exec(e.slice(r));
      if (i) {
        r += i[0].length - 1;
        continue;
      }
    }
    if (e[r] !== '<') continue;
    let s = l.slice(t + r),
      o = n.inline.tag.exec(s) || n.inline.autolink.exec(s);
    if (o) {
      if (o[0].length > e.length - r) return !0;
      r += o[0].length - 1;
    }
  }
  return !1;
}
var _ = class {
  options;
  rules;
  lexer;
  constructor(e) {
    this.options = e || S;
  }
  space(e) {
    let t = this.rules.block.newline.exec(e);
    if (t && t[0].length > 0)
      return {
        type: 'space',
        raw: t[0],
      };
  }
  code(e) {
    let t = this.rules.block.code.exec(e);
    if (t) {
      let n = this.options.pedantic ? t[0] : Re(t[0]);
      return {
        type: 'code',
        raw: n,
        codeBlockStyle: 'indented',
        text: n.replace(this.rules.other.codeRemoveIndent, ''),
      };
    }
  }
  fences(e) {
    let t = this.rules.block.fences.exec(e);
    if (t) {
      let n = t[0],
        r = Zt(n, t[3] || '', this.rules);
      return (
        t[3] !== void 0 &&
          (r === '' ||
            r.endsWith(`
`)) &&
          (r += `
`),
        {
          type: 'code',
          raw: n,
          lang: t[2] ? t[2].trim().replace(this.rules.inline.anyPunctuation, '$1') : t[2],
          text: r,
        }
      );
    }
  }
  heading(e) {
    let t = this.rules.block.heading.exec(e);
    if (t) {
      let n = t[2].trim();
      if (this.rules.other.endingHash.test(n)) {
        let r = C(n, '#');
        (this.options.pedantic || !r || this.rules.other.endingSpaceTabChar.test(r)) && (n = r.trim());
      }
      return {
        type: 'heading',
        raw: C(
          t[0],
          `
`,
        ),
        depth: t[1].length,
        text: n,
        tokens: this.lexer.inline(n),
      };
    }
  }
  hr(e) {
    let t = this.rules.block.hr.exec(e);
    if (t)
      return {
        type: 'hr',
        raw: C(
          t[0],
          `
`,
        ),
      };
  }
  blockquote(e) {
    let t = this.rules.block.blockquote.exec(e);
    if (t) {
      let n = C(
          t[0],
          `
`,
        ).split(`
`),
        r = '',
        s = '',
        o = [];
      for (; n.length > 0;) {
        let i = !1,
          a = [],
          c = 0;
        for (; c < n.length; c++)
          if (this.rules.other.blockquoteStart.test(n[c])) (a.push(n[c]), (i = !0));
          else if (!i) a.push(n[c]);
          else break;
        n = n.slice(c);
        let u = a.join(`
`),
          d = u
            .replace(this.rules.other.blockquoteMarkerWhitespace, (k, m, b) =>
              b.startsWith(' ') ? m + ' ' + b.slice(1) : m + te(b, m.length),
            )
            .replace(
              this.rules.other.blockquoteSetextReplace,
              `
    $1`,
            )
            .replace(this.rules.other.blockquoteSetextReplace2, '');
        ((r = r
          ? `${r}
${u}`
          : u),
          (s = s
            ? `${s}
${d}`
            : d));
        let h = this.lexer.state.top;
        if (
          ((this.lexer.state.top = !0),
          this.lexer.blockTokens(d, o, !0),
          (this.lexer.state.top = h),
          n.length === 0)
        )
          break;
        let p = o.at(-1);
        if (
          p?.type === 'code' ||
          p?.type === 'heading' ||
          p?.type === 'hr' ||
          p?.type === 'html' ||
          p?.type === 'table'
        )
          break;
        if (p?.type === 'blockquote') {
          let k = p,
            m = n.join(`
`),
            b =
              k.raw +
              `
` +
              m.replace(this.rules.other.blockquoteSetextReplace2, ''),
            f = this.blockquote(b);
          o[o.length - 1] = f;
          let R = b.substring(f.raw.length).replace(/^\n/, ''),
            E = R
              ? R.split(`
`).length
              : 0,
            T = E ? n.slice(0, -E) : n;
          if (
            (T.length > 0 &&
              (r = `${r}
${T.join(`
`)}`),
            (s = s.substring(0, s.length - k.text.length) + f.text),
            (n = n.slice(T.length)),
            n.length > 0 && this.rules.other.blockquoteStart.test(n[0]))
          )
            continue;
          break;
        } else if (p?.type === 'list') {
          let k = p,
            m =
              k.raw +
              `
` +
              n.join(`
`),
            b = this.list(m);
          o[o.length - 1] = b;
          let f =
            b.raw.length > k.raw.length
              ? m.slice(k.raw.length + 1, b.raw.length).split(`
`).length
              : 0;
          if (f > 0) {
            let R = n.slice(0, f).join(`
`);
            ((r = `${r}
${R}`),
              (s = `${s}
${R}`));
          }
          if (((n = n.slice(f)), n.length > 0 && !this.rules.other.blockquoteStart.test(n[0]))) break;
          continue;
        }
      }
      return {
        type: 'blockquote',
        raw: r,
        tokens: o,
        text: s,
      };
    }
  }
  list(e) {
    let t = this.rules.block.list.exec(e);
    if (t) {
      if (
        !this.options.pedantic &&
        this.lexer.state.lastToken?.type === 'text' &&
        !this.rules.other.listInterruptsParagraph.test(e)
      )
        return;
      let n = e,
        r = () => n.length - e.length,
        s = t[1].trim(),
        o = s.length > 1,
        i = {
          type: 'list',
          raw: '',
          ordered: o,
          start: o ? +s.slice(0, -1) : '',
          loose: !1,
          items: [],
        };
      ((s = o ? `\\d{1,9}\\${s.slice(-1)}` : `\\${s}`), this.options.pedantic && (s = o ? s : '[*+-]'));
      let a = this.rules.other.listItemRegex(s),
        c = !1;
      for (; e;) {
        let h = !1,
          p = '';
        if (!(t = a.exec(e)) || this.rules.block.hr.test(e)) break;
        let k = r();
        e = e.substring(t[0].length);
        let m = t[2].split(
            `
`,
            1,
          )[0],
          b = t[1].length,
          f = this.options.pedantic ? te(m, b) : m.replace(this.rules.other.leadingSpaceTab, (H) => te(H, b)),
          R = e.split(
            `
`,
            1,
          )[0],
          E = !f.trim(),
          T = 0;
        if (
          (this.options.pedantic
            ? ((T = 2), (p = f.trimStart()))
            : E
              ? (T = b + 1)
              : ((T = f.search(this.rules.other.nonSpaceChar)),
                (T = T > 4 ? 1 : T),
                (p = f.slice(T)),
                (T += b)),
          E && this.rules.other.blankLine.test(R) && ((e = e.substring(R.length + 1)), (h = !0)),
          !h)
        ) {
          let H = this.rules.other.nextBulletRegex(T),
            K = this.rules.other.hrRegex(T),
            re = this.rules.other.fencesBeginRegex(T),
            B = this.options.pedantic
              ? this.rules.other.pedanticHeadingBeginRegex(T)
              : this.rules.other.headingBeginRegex(T),
            X = this.rules.other.htmlBeginRegex(T),
            se = this.rules.other.blockquoteBeginRegex(T),
            le = !1;
          for (; e;) {
            let we = e.split(
                `
`,
                1,
              )[0],
              Z;
            if (
              ((R = we),
              this.options.pedantic
                ? ((R = R.replace(this.rules.other.listReplaceNesting, '  ')), (Z = R))
                : (Z = R.replace(this.rules.other.leadingSpaceTab, ($) => te($))),
              re.test(R) || B.test(R) || X.test(R) || se.test(R) || H.test(R) || K.test(R))
            )
              break;
            if (Z.search(this.rules.other.nonSpaceChar) >= T || !R.trim())
              ((p +=
                `
` + Z.slice(T)),
                (le = !1));
            else {
              if (E) break;
              let $ = f;
              if (
                !this.options.pedantic &&
                !p.includes(`
`) &&
                !f.includes('	')
              ) {
                let j;
                for (; !K.test($) && (j = this.rules.other.nestedBlockMarker.exec($));)
                  $ = $.slice(j[0].length);
                if (!$.trim()) break;
              }
              if (
                $.replace(this.rules.other.tabCharGlobal, '    ').search(this.rules.other.nonSpaceChar) >=
                  4 ||
                re.test($) ||
                B.test($) ||
                X.test($) ||
                K.test($)
              )
                break;
              if (!this.options.pedantic && !le) {
                let j = f.replace(this.rules.other.nestedContainerMarkers, '');
                if (
                  this.rules.block.fences.test(j) ||
                  this.rules.block.heading.test(j) ||
                  this.rules.block.hr.test(j)
                )
                  break;
              }
              let je =
                !this.options.pedantic &&
                /^ {0,3}(?:=+|-+) *$/.test(R) &&
                this.rules.block.lheading.test(`${f}
${R}`)
                  ? `    ${Z.replace(/^ {0,3}/, '')}`
                  : R;
              ((p +=
                `
` + je),
                (le = !0));
            }
            ((E = !R.trim()), (e = e.substring(we.length + 1)), (f = Z.slice(T)));
          }
        }
        let U = n.slice(k, r());
        (i.loose || (c ? (i.loose = !0) : this.rules.other.doubleBlankLine.test(U) && (c = !0)),
          i.items.push({
            type: 'list_item',
            raw: U,
            task: !!this.options.gfm && this.rules.other.listIsTask.test(p),
            loose: !1,
            text: p,
            tokens: [],
          }));
      }
      let u = i.items.at(-1);
      if (u) ((u.raw = u.raw.trimEnd()), (u.text = u.text.trimEnd()));
      else return;
      i.raw = n.slice(0, r()).trimEnd();
      let d = [];
      for (let h of i.items)
        if (
          ((this.lexer.state.top = !1),
          d.push(this.lexer.inlineQueue.length),
          (h.tokens = this.lexer.blockTokens(h.text, [])),
          !i.loose)
        ) {
          let p = h.tokens.filter((m) => m.type === 'space');
          i.loose = p.length > 0 && p.some((m) => this.rules.other.anyLine.test(m.raw));
        }
      for (let h = 0; h < i.items.length; h++) {
        let p = i.items[h],
          k = p.tokens[0];
        if (p.task && (k?.type === 'text' || k?.type === 'paragraph')) {
          ((p.text = p.text.replace(this.rules.other.listReplaceTask, '')),
            (k.raw = k.raw.replace(this.rules.other.listReplaceTask, '')),
            (k.text = k.text.replace(this.rules.other.listReplaceTask, '')));
          let m = this.lexer.inlineQueue;
          for (let f = d[h]; f < m.length; f++)
            if (m[f].tokens === k.tokens) {
              m[f].src = m[f].src.replace(this.rules.other.listReplaceTask, '');
              break;
            }
          let b = this.rules.other.listTaskCheckbox.exec(p.raw);
          if (b) {
            let f = {
              type: 'checkbox',
              raw: b[0] + ' ',
              checked: b[0] !== '[ ]',
            };
            ((p.checked = f.checked),
              i.loose
                ? p.tokens[0] &&
                  ['paragraph', 'text'].includes(p.tokens[0].type) &&
                  'tokens' in p.tokens[0] &&
                  p.tokens[0].tokens
                  ? ((p.tokens[0].raw = f.raw + p.tokens[0].raw),
                    (p.tokens[0].text = f.raw + p.tokens[0].text),
                    p.tokens[0].tokens.unshift(f))
                  : p.tokens.unshift({
                      type: 'paragraph',
                      raw: f.raw,
                      text: f.raw,
                      tokens: [f],
                    })
                : p.tokens.unshift(f));
          }
        } else p.task && (p.task = !1);
      }
      if (i.loose)
        for (let h of i.items) {
          h.loose = !0;
          for (let p of h.tokens) p.type === 'text' && (p.type = 'paragraph');
        }
      return i;
    }
  }
  html(e) {
    let t = this.rules.block.html.exec(e);
    if (t) {
      if (this.lexer.state.lastToken?.type === 'paragraph' && !this.rules.other.htmlBeginRegex(4).test(e))
        return;
      let n = Re(t[0]);
      return {
        type: 'html',
        block: !0,
        raw: n,
        pre: t[1] === 'pre' || t[1] === 'script' || t[1] === 'style',
        text: n,
      };
    }
  }
  def(e) {
    let t = this.rules.block.def.exec(e);
    if (t) {
      if (!this.rules.other.startAngleBracket.test(t[2]) && Te(t[2], '()') !== -1) return;
      let n = W(t[1]),
        r = t[2]
          ? t[2].replace(this.rules.other.hrefBrackets, '$1').replace(this.rules.inline.anyPunctuation, '$1')
          : '',
        s = t[3] ? t[3].substring(1, t[3].length - 1).replace(this.rules.inline.anyPunctuation, '$1') : t[3];
      return {
        type: 'def',
        tag: n,
        raw: C(
          t[0],
          `
`,
        ),
        href: r,
        title: s,
      };
    }
  }
  table(e) {
    let t = this.rules.block.table.exec(e);
    if (!t || !this.rules.other.tableDelimiter.test(t[2])) return;
    let n = be(t[1]),
      r = t[2].replace(this.rules.other.tableAlignChars, '').split('|'),
      s = t[3]?.trim()
        ? t[3].replace(this.rules.other.tableRowBlankLine, '').split(`
`)
        : [],
      o = {
        type: 'table',
        raw: C(
          t[0],
          `
`,
        ),
        header: [],
        align: [],
        rows: [],
      };
    if (n.length === r.length) {
      for (let i of r)
        this.rules.other.tableAlignRight.test(i)
          ? o.align.push('right')
          : this.rules.other.tableAlignCenter.test(i)
            ? o.align.push('center')
            : this.rules.other.tableAlignLeft.test(i)
              ? o.align.push('left')
              : o.align.push(null);
      for (let i = 0; i < n.length; i++)
        o.header.push({
          text: n[i],
          tokens: this.lexer.inline(n[i]),
          header: !0,
          align: o.align[i],
        });
      for (let i of s)
        o.rows.push(
          be(i, o.header.length).map((a, c) => ({
            text: a,
            tokens: this.lexer.inline(a),
            header: !1,
            align: o.align[c],
          })),
        );
      return o;
    }
  }
  lheading(e) {
    let t = this.rules.block.lheading.exec(e);
    if (t) {
      let n = t[1].trim();
      return {
        type: 'heading',
        raw: C(
          t[0],
          `
`,
        ),
        depth: t[2].charAt(0) === '=' ? 1 : 2,
        text: n,
        tokens: this.lexer.inline(n),
      };
    }
  }
  paragraph(e) {
    let t = this.rules.block.paragraph.exec(e);
    if (t) {
      let n =
        t[1].charAt(t[1].length - 1) ===
        `
`
          ? t[1].slice(0, -1)
          : t[1];
      return {
        type: 'paragraph',
        raw: t[0],
        text: n,
        tokens: this.lexer.inline(n),
      };
    }
  }
  text(e) {
    let t = this.rules.block.text.exec(e);
    if (t)
      return {
        type: 'text',
        raw: t[0],
        text: t[0],
        tokens: this.lexer.inline(t[0]),
      };
  }
  escape(e) {
    if (e.charCodeAt(0) !== 92) return;
    let t = this.rules.inline.escape.exec(e);
    if (t)
      return {
        type: 'escape',
        raw: t[0],
        text: t[1],
      };
  }
  tag(e) {
    if (e.charCodeAt(0) !== 60) return;
    let t = this.rules.inline.tag.exec(e);
    if (t)
      return (
        !this.lexer.state.inLink && this.rules.other.startATag.test(t[0])
          ? (this.lexer.state.inLink = !0)
          : this.lexer.state.inLink && this.rules.other.endATag.test(t[0]) && (this.lexer.state.inLink = !1),
        !this.lexer.state.inRawBlock && this.rules.other.startPreScriptTag.test(t[0])
          ? (this.lexer.state.inRawBlock = !0)
          : this.lexer.state.inRawBlock &&
            this.rules.other.endPreScriptTag.test(t[0]) &&
            (this.lexer.state.inRawBlock = !1),
        {
          type: 'html',
          raw: t[0],
          inLink: this.lexer.state.inLink,
          inRawBlock: this.lexer.state.inRawBlock,
          block: !1,
          text: t[0],
        }
      );
  }
  link(e) {
    if (this.lexer.state.linkParenPossible === !1) return;
    let t = e.charCodeAt(0);
    if (t !== 91 && t !== 33) return;
    let n = this.rules.inline.link.exec(e);
    if (n) {
      let r = n[0].charAt(0) === '!' ? 2 : 1;
      if (!this.options.pedantic && Ze(e, n[1], r, this.rules)) return;
      let s = n[2].trim();
      if (!this.options.pedantic && this.rules.other.startAngleBracket.test(s)) {
        if (!this.rules.other.endAngleBracket.test(s)) return;
        let c = C(s.slice(0, -1), '\\');
        if ((s.length - c.length) % 2 === 0) return;
      } else {
        let c = Te(n[2], '()');
        if (c === -2) return;
        if (c > -1) {
          let d = (n[0].indexOf('!') === 0 ? 5 : 4) + n[1].length + c;
          ((n[2] = n[2].substring(0, c)), (n[0] = n[0].substring(0, d).trim()), (n[3] = ''));
        }
      }
      let o = C(n[0].slice(0, -1), '\\');
      if ((n[0].length - o.length) % 2 === 0) return;
      let i = n[2],
        a = '';
      if (this.options.pedantic) {
        let c = this.rules.other.pedanticHrefTitle.exec(i);
        c && ((i = c[1]), (a = c[3]));
      } else a = n[3] ? n[3].slice(1, -1) : '';
      return (
        (i = i.trim()),
        this.rules.other.startAngleBracket.test(i) &&
          (this.options.pedantic && !this.rules.other.endAngleBracket.test(s)
            ? (i = i.slice(1))
            : (i = i.slice(1, -1))),
        He(
          n,
          {
            href: i && i.replace(this.rules.inline.anyPunctuation, '$1'),
            title: a && a.replace(this.rules.inline.anyPunctuation, '$1'),
          },
          n[0],
          this.lexer,
          this.rules,
        )
      );
    }
  }
  reflink(e, t) {
    let n = e.charCodeAt(0);
    if (n !== 91 && n !== 33) return;
    let r;
    if ((r = this.rules.inline.reflink.exec(e)) || (r = this.rules.inline.nolink.exec(e))) {
      let s = r[0].charAt(0) === '!' ? 2 : 1;
      if (!this.options.pedantic && Ze(e, r[1], s, this.rules)) return;
      let o = t[W(r[2] || r[1])];
      if (!o) {
        let i = r[0].charAt(0);
        return {
          type: 'text',
          raw: i,
          text: i,
        };
      }
      return He(r, o, r[0], this.lexer, this.rules);
    }
  }
  emStrong(e, t, n = '') {
    let r = this.rules.inline.emStrongLDelim.exec(e);
    if (!r || (!r[1] && !r[2] && !r[3] && !r[4])) return;
    let s = r[0][0],
      o = n === s,
      i = t.length - e.length,
      a = i;
    for (; !this.options.pedantic && a > 0 && t[a - 1] === s;) a--;
    let c = [...t.slice(Math.max(0, a - 2), a)].at(-1) ?? '',
      u = c === '*' || c === '_' || !!this.rules.inline.punctuation.exec(c);
    a < i && (n = c);
    let d = a < i ? u : n === '*' || n === '_' || !!this.rules.inline.punctuation.exec(n);
    if (r[4] && n.match(this.rules.other.unicodeAlphaNumeric)) return;
    let h = r[1] || r[3] || '';
    if (!h || !n || d) {
      let p = [...r[0]].length - 1,
        k,
        m,
        b = p,
        f = 0,
        R = i - a + p,
        E = !this.options.pedantic && !!c.trim() && (!!h || (s === '*' && !u));
      if (s !== '*' && s !== '_') return;
      let T = s === '*' ? this.rules.inline.emStrongRDelimAst : this.rules.inline.emStrongRDelimUnd,
        U = oe(this, t, s),
        H = t.length - e.length + p;
      if (U < H) return;
      t = t.slice(-1 * e.length + p);
      let K = U - H;
      for (T.lastIndex = 0; (r = T.exec(t)) !== null && !(r.index > K);) {
        if (((k = r[1] || r[2] || r[3] || r[4] || r[5] || r[6]), !k)) continue;
        if (((m = [...k].length), r[3] || r[4])) {
          b += m;
          continue;
        } else if ((r[5] || r[6] || E) && R % 3 && !((R + m) % 3)) {
          if (o && (r[5] || r[6])) break;
          f += m;
          continue;
        }
        if (((b -= m), b > 0)) continue;
        m = Math.min(m, m + b + f);
        let re = [...r[0]][0].length,
          B = e.slice(0, p + r.index + re + m);
        if (Math.min(p, m) % 2) {
          let se = B.slice(1, -1);
          return {
            type: 'em',
            raw: B,
            text: se,
            tokens: this.lexer.inlineTokens(se),
          };
        }
        let X = B.slice(2, -2);
        return {
          type: 'strong',
          raw: B,
          text: X,
          tokens: this.lexer.inlineTokens(X),
        };
      }
    }
  }
  codespan(e) {
    if (e.charCodeAt(0) !== 96) return;
    let t = this.rules.inline.code.exec(e);
    if (t) {
      let n = t[2].replace(this.rules.other.newLineCharGlobal, ' '),
        r = this.rules.other.nonSpaceChar.test(n),
        s = this.rules.other.startingSpaceChar.test(n) && this.rules.other.endingSpaceChar.test(n);
      return (
        r && s && (n = n.substring(1, n.length - 1)),
        {
          type: 'codespan',
          raw: t[0],
          text: n,
        }
      );
    }
  }
  br(e) {
    let t = e.charCodeAt(0);
    if (t !== 32 && t !== 92 && t !== 10) return;
    let n = this.rules.inline.br.exec(e);
    if (n)
      return {
        type: 'br',
        raw: n[0],
      };
  }
  del(e, t, n = '') {
    if (e.charCodeAt(0) !== 126) return;
    let r = this.rules.inline.delLDelim.exec(e);
    if (!r) return;
    if (!(r[1] || '') || !n || this.rules.inline.punctuation.exec(n)) {
      let o = [...r[0]].length - 1,
        i,
        a,
        c = o,
        u = this.rules.inline.delRDelim,
        d = ae(this, t),
        h = t.length - e.length + o;
      if (d < h) return;
      t = t.slice(-1 * e.length + o);
      let p = d - h;
      for (u.lastIndex = 0; (r = u.exec(t)) !== null && !(r.index > p);) {
        if (((i = r[1] || r[2] || r[3] || r[4] || r[5] || r[6]), !i || ((a = [...i].length), a !== o)))
          continue;
        if (r[3] || r[4]) {
          c += a;
          continue;
        }
        if (((c -= a), c > 0)) continue;
        a = Math.min(a, a + c);
        let k = [...r[0]][0].length,
          m = e.slice(0, o + r.index + k + a),
          b = m.slice(o, -o);
        return {
          type: 'del',
          raw: m,
          text: b,
          tokens: this.lexer.inlineTokens(b),
        };
      }
    }
  }
  autolink(e) {
    if (e.charCodeAt(0) !== 60) return;
    let t = this.rules.inline.autolink.exec(e);
    if (t) {
      let n, r;
      return (
        t[2] === '@' ? ((n = t[1]), (r = 'mailto:' + n)) : ((n = t[1]), (r = n)),
        {
          type: 'link',
          raw: t[0],
          text: n,
          href: r,
          autolink: !0,
          tokens: [
            {
              type: 'text',
              raw: n,
              text: n,
            },
          ],
        }
      );
    }
  }
  url(e) {
    let t;
    if ((t = this.rules.inline.url.exec(e))) {
      let n, r;
      if (t[2] === '@') ((n = t[0]), (r = 'mailto:' + n));
      else {
        let s;
        do ((s = t[0]), (t[0] = this.rules.inline._backpedal.exec(t[0])?.[0] ?? ''));
        while (s !== t[0]);
        ((n = t[0]), t[1] === 'www.' ? (r = 'http://' + t[0]) : (r = t[0]));
      }
      return {
        type: 'link',
        raw: t[0],
        text: n,
        href: r,
        autolink: !0,
        tokens: [
          {
            type: 'text',
            raw: n,
            text: n,
          },
        ],
      };
    }
  }
  inlineText(e) {
    let t = this.rules.inline.text.exec(e);
    if (t) {
      let n = this.lexer.state.inRawBlock;
      return {
        type: 'text',
        raw: t[0],
        text: n ? t[0] : De(t[0]),
        escaped: n,
      };
    }
  }
};
var w = class l {
  tokens;
  options;
  state;
  inlineQueue;
  tokenizer;
  constructor(e) {
    ((this.tokens = []),
      (this.tokens.links = Object.create(null)),
      (this.options = e || S),
      (this.options.tokenizer = this.options.tokenizer || new _()),
      (this.tokenizer = this.options.tokenizer),
      (this.tokenizer.options = this.options),
      (this.tokenizer.lexer = this),
      (this.inlineQueue = []),
      (this.state = {
        inLink: !1,
        inRawBlock: !1,
        linkEmitted: !1,
        linkParenPossible: !0,
        top: !0,
      }));
    let t = {
      other: O,
      block: ee.normal,
      inline: F.normal,
    };
    (this.options.pedantic
      ? ((t.block = ee.pedantic), (t.inline = F.pedantic))
      : this.options.gfm &&
        ((t.block = ee.gfm), this.options.breaks ? (t.inline = F.breaks) : (t.inline = F.gfm)),
      (this.tokenizer.rules = t));
  }
  static get rules() {
    return {
      block: ee,
      inline: F,
    };
  }
  static lex(e, t) {
    return new l(t).lex(e);
  }
  static lexInline(e, t) {
    return new l(t).inlineTokens(e);
  }
  lex(e) {
    ((e = e.replace(
      O.carriageReturn,
      `
`,
    )),
      this.blockTokens(e, this.tokens));
    for (let t = 0; t < this.inlineQueue.length; t++) {
      let n = this.inlineQueue[t];
      ((this.state.inRawBlock = !1), this.inlineTokens(n.src, n.tokens));
    }
    return ((this.inlineQueue = []), this.tokens);
  }
  blockTokens(e, t = [], n = !1) {
    this.tokenizer.lexer = this;
    let r = this.state.lastToken;
    this.options.pedantic && (e = e.replace(O.tabCharGlobal, '    ').replace(O.spaceLine, ''));
    let s = 1 / 0,
      o,
      i = this.options.gfm && !this.options.pedantic && this.tokenizer.paragraph === _.prototype.paragraph;
    for (; e;) {
      if (e.length < s) s = e.length;
      else {
        this.infiniteLoopError(e.charCodeAt(0));
        break;
      }
      this.state.lastToken = t.at(-1);
      let a;
      if (
        this.options.extensions?.block?.some((u) =>
          (a = u.call({ lexer: this }, e, t)) ? ((e = e.substring(a.raw.length)), t.push(a), !0) : !1,
        )
      )
        continue;
      if ((a = this.tokenizer.space(e))) {
        e = e.substring(a.raw.length);
        let u = t.at(-1);
        a.raw.length === 1 && u !== void 0
          ? (u.raw += `
`)
          : t.push(a);
        continue;
      }
      if ((a = this.tokenizer.code(e))) {
        e = e.substring(a.raw.length);
        let u = t.at(-1);
        u?.type === 'paragraph' || u?.type === 'text'
          ? ((u.raw +=
              (u.raw.endsWith(`
`)
                ? ''
                : `
`) + a.raw),
            (u.text +=
              `
` + a.text),
            (this.inlineQueue.at(-1).src = u.text))
          : t.push(a);
        continue;
      }
      if ((a = this.tokenizer.fences(e))) {
        ((e = e.substring(a.raw.length)), t.push(a));
        continue;
      }
      if ((a = this.tokenizer.heading(e))) {
        ((e = e.substring(a.raw.length)), t.push(a));
        continue;
      }
      if ((a = this.tokenizer.hr(e))) {
        ((e = e.substring(a.raw.length)), t.push(a));
        continue;
      }
      if ((a = this.tokenizer.blockquote(e))) {
        ((e = e.substring(a.raw.length)), t.push(a));
        continue;
      }
      if ((a = this.tokenizer.list(e))) {
        ((e = e.substring(a.raw.length)), t.push(a));
        continue;
      }
      if ((a = this.tokenizer.html(e))) {
        ((e = e.substring(a.raw.length)), t.push(a));
        continue;
      }
      if ((a = this.tokenizer.def(e))) {
        e = e.substring(a.raw.length);
        let u = t.at(-1);
        u?.type === 'paragraph' || u?.type === 'text'
          ? ((u.raw +=
              (u.raw.endsWith(`
`)
                ? ''
                : `
`) + a.raw),
            (u.text +=
              `
` + a.raw),
            (this.inlineQueue.at(-1).src = u.text))
          : (this.tokens.links[a.tag] ||
              (this.tokens.links[a.tag] = {
                href: a.href,
                title: a.title,
              }),
            t.push(a));
        continue;
      }
      if ((a = this.tokenizer.table(e))) {
        ((e = e.substring(a.raw.length)), t.push(a));
        continue;
      }
      if ((a = this.tokenizer.lheading(e))) {
        ((e = e.substring(a.raw.length)), t.push(a));
        continue;
      }
      let c = e;
      if (this.options.extensions?.startBlock) {
        let u = 1 / 0,
          d = e.slice(1),
          h;
        (this.options.extensions.startBlock.forEach((p) => {
          ((h = p.call({ lexer: this }, d)), typeof h == 'number' && h >= 0 && (u = Math.min(u, h)));
        }),
          u < 1 / 0 && u >= 0 && (c = e.substring(0, u + 1)));
      }
      if (this.state.top && (a = this.tokenizer.paragraph(c))) {
        let u = t.at(-1);
        ((n || (u === o && i)) && u?.type === 'paragraph'
          ? ((u.raw +=
              (u.raw.endsWith(`
`)
                ? ''
                : `
`) + a.raw),
            (u.text +=
              `
` + a.text),
            this.inlineQueue.pop(),
            (this.inlineQueue.at(-1).src = u.text),
            (o = u))
          : (t.push(a), (o = a)),
          (n = c.length !== e.length),
          (e = e.substring(a.raw.length)));
        continue;
      }
      if ((a = this.tokenizer.text(e))) {
        e = e.substring(a.raw.length);
        let u = t.at(-1);
        u?.type === 'text'
          ? ((u.raw +=
              (u.raw.endsWith(`
`)
                ? ''
                : `
`) + a.raw),
            (u.text +=
              `
` + a.text),
            this.inlineQueue.pop(),
            (this.inlineQueue.at(-1).src = u.text))
          : t.push(a);
        continue;
      }
      if (e) {
        this.infiniteLoopError(e.charCodeAt(0));
        break;
      }
    }
    return ((this.state.top = !0), (this.state.lastToken = r), t);
  }
  inline(e, t = []) {
    return (
      this.inlineQueue.push({
        src: e,
        tokens: t,
      }),
      t
    );
  }
  linkInText(e) {
    if (!e.includes('[')) return !1;
    let t = this.tokenizer.rules.inline.link;
    for (let n of e.matchAll(this.tokenizer.rules.inline.blockSkip))
      if (t.test(n[0]) && e.charAt(n.index - 1) !== '!') return !0;
    for (let n of e.matchAll(this.tokenizer.rules.inline.reflinkSearch)) {
      let r = n[0],
        s = r.lastIndexOf('[');
      if (
        !(r.charAt(0) === '!' || !Object.hasOwn(this.tokens.links, W(r.slice(s + 1, -1)))) &&
        !(s > 1 && this.linkInText(r.slice(1, s - 1)))
      )
        return !0;
    }
    return !1;
  }
  inlineTokens(e, t = []) {
    this.tokenizer.lexer = this;
    let n = this.state.linkParenPossible;
    this.state.linkParenPossible = e.includes(')');
    try {
      return this.#t(e, t);
    } finally {
      this.state.linkParenPossible = n;
    }
  }
  #t(e, t) {
    let n = e.includes('*') || e.includes('_') || e.includes('~'),
      r =
        n ||
        this.options.hooks?.emStrongMask ||
        this.tokenizer.emStrong !== _.prototype.emStrong ||
        this.tokenizer.del !== _.prototype.del
          ? this.#r(e)
          : e;
    if (!n) return this.#e(e, r, t);
    qe(this.tokenizer, r);
    try {
      return this.#e(e, r, t);
    } finally {
      ve(this.tokenizer);
    }
  }
  #e(e, t, n) {
    let r = !1,
      s = '',
      o = 1 / 0;
    for (; e;) {
      if (e.length < o) o = e.length;
      else {
        this.infiniteLoopError(e.charCodeAt(0));
        break;
      }
      (r || (s = ''), (r = !1));
      let i;
      if (
        this.options.extensions?.inline?.some((u) =>
          (i = u.call({ lexer: this }, e, n)) ? ((e = e.substring(i.raw.length)), n.push(i), !0) : !1,
        )
      )
        continue;
      if ((i = this.tokenizer.escape(e))) {
        ((e = e.substring(i.raw.length)), n.push(i));
        continue;
      }
      if ((i = this.tokenizer.tag(e))) {
        ((e = e.substring(i.raw.length)), n.push(i));
        continue;
      }
      if ((i = this.tokenizer.link(e))) {
        ((e = e.substring(i.raw.length)), n.push(i));
        continue;
      }
      if ((i = this.tokenizer.reflink(e, this.tokens.links))) {
        e = e.substring(i.raw.length);
        let u = n.at(-1);
        i.type === 'text' && u?.type === 'text' ? ((u.raw += i.raw), (u.text += i.text)) : n.push(i);
        continue;
      }
      let a = e[0];
      if (a === '*' || a === '_') {
        let u = t.length - e.length;
        if (oe(this.tokenizer, t, a) <= u) {
          let h = 1;
          for (; h < e.length && e.charCodeAt(h) === a.charCodeAt(0);) h++;
          let p = e.substring(0, h),
            k = n.at(-1);
          (k?.type === 'text' && !k.escaped
            ? ((k.raw += p), (k.text += p))
            : n.push({
                type: 'text',
                raw: p,
                text: p,
                escaped: !1,
              }),
            (e = e.substring(h)),
            (s = a),
            (r = !0));
          continue;
        }
      } else if (a === '~') {
        let u = t.length - e.length;
        if (ae(this.tokenizer, t) <= u) {
          let h = 1;
          for (; h < e.length && e.charCodeAt(h) === 126;) h++;
          let p = e.substring(0, h),
            k = n.at(-1);
          (k?.type === 'text' && !k.escaped
            ? ((k.raw += p), (k.text += p))
            : n.push({
                type: 'text',
                raw: p,
                text: p,
                escaped: !1,
              }),
            (e = e.substring(h)),
            (s = a),
            (r = !0));
          continue;
        }
      }
      if ((i = this.tokenizer.emStrong(e, t, s))) {
        ((e = e.substring(i.raw.length)), n.push(i));
        continue;
      }
      if ((i = this.tokenizer.codespan(e))) {
        ((e = e.substring(i.raw.length)), n.push(i));
        continue;
      }
      if ((i = this.tokenizer.br(e))) {
        ((e = e.substring(i.raw.length)), n.push(i));
        continue;
      }
      if ((i = this.tokenizer.del(e, t, s))) {
        ((e = e.substring(i.raw.length)), n.push(i));
        continue;
      }
      if ((i = this.tokenizer.autolink(e))) {
        ((e = e.substring(i.raw.length)), n.push(i));
        continue;
      }
      if (!this.state.inLink && (i = this.tokenizer.url(e))) {
        ((e = e.substring(i.raw.length)), n.push(i));
        continue;
      }
      let c = e;
      if (this.options.extensions?.startInline) {
        let u = 1 / 0,
          d = e.slice(1),
          h;
        (this.options.extensions.startInline.forEach((p) => {
          ((h = p.call({ lexer: this }, d)), typeof h == 'number' && h >= 0 && (u = Math.min(u, h)));
        }),
          u < 1 / 0 && u >= 0 && (c = e.substring(0, u + 1)));
      }
      if ((i = this.tokenizer.inlineText(c))) {
        ((e = e.substring(i.raw.length)), i.raw.slice(-1) !== '_' && (s = i.raw.slice(-1)), (r = !0));
        let u = n.at(-1);
        u?.type === 'text' ? ((u.raw += i.raw), (u.text += i.text)) : n.push(i);
        continue;
      }
      if (e) {
        this.infiniteLoopError(e.charCodeAt(0));
        break;
      }
    }
    return n;
  }
  #n(e) {
    let { blockSkip: t, tag: n, autolink: r } = this.tokenizer.rules.inline,
      s = '',
      o = 0,
      i;
    for (t.lastIndex = 0; (i = t.exec(e));) {
      let a = i.index + (i[2] ? i[2].length : 0),
        c = i.index + i[0].length;
      if (e.charAt(a) === '<') {
        let u = e.slice(a),
          d = n.exec(u) || r.exec(u);
        if (!d) {
          t.lastIndex = a + 1;
          continue;
        }
        ((c = a + d[0].length), (t.lastIndex = c));
      }
      ((s += e.slice(o, a) + '[' + 'a'.repeat(c - a - 2) + ']'), (o = c));
    }
    return s + e.slice(o);
  }
  #r(e) {
    let t = e;
    if (this.tokens.links && e.includes('[')) {
      let n = this.tokenizer.rules.inline.reflinkSearch,
        r = (s) => {
          let o = s.lastIndexOf('[');
          if (!Object.hasOwn(this.tokens.links, W(s.slice(o + 1, -1)))) return s;
          if (o > 1 && s.charAt(0) !== '!') {
            let i = s.slice(1, o - 1);
            if (this.linkInText(i)) return '[' + i.replace(n, r) + '][' + 'a'.repeat(s.length - o - 2) + ']';
          }
          return '[' + 'a'.repeat(s.length - 2) + ']';
        };
      t = t.replace(n, r);
    }
    return (
      (t = t.replace(this.tokenizer.rules.inline.anyPunctuationOutsideCode, (n, r, s) =>
        s ? '+'.repeat(n.length) : r ? r + n.slice(r.length, -r.length).replace(/`/g, '+') + r : n,
      )),
      (t = this.#n(t)),
      (t = this.options.hooks?.emStrongMask?.call({ lexer: this }, t) ?? t),
      t
    );
  }
  infiniteLoopError(e) {
    let t = 'Infinite loop on byte: ' + e;
    if (this.options.silent) console.error(t);
    else throw new Error(t);
  }
};
var I = class {
  options;
  parser;
  constructor(e) {
    this.options = e || S;
  }
  space(e) {
    return '';
  }
  code({ text: e, lang: t, escaped: n }) {
    let r = (t || '').match(O.notSpaceStart)?.[0],
      s = e
        ? e.replace(O.endingNewline, '') +
          `
`
        : '';
    return r
      ? '<pre><code class="language-' +
          y(r) +
          '">' +
          (n ? s : y(s, !0)) +
          `</code></pre>
`
      : '<pre><code>' +
          (n ? s : y(s, !0)) +
          `</code></pre>
`;
  }
  blockquote({ tokens: e }) {
    return `<blockquote>
${this.parser.parse(e)}</blockquote>
`;
  }
  html({ text: e }) {
    return e;
  }
  def(e) {
    return '';
  }
  heading({ tokens: e, depth: t }) {
    return `<h${t}>${this.parser.parseInline(e)}</h${t}>
`;
  }
  hr(e) {
    return `<hr>
`;
  }
  list(e) {
    let t = e.ordered,
      n = e.start,
      r = '';
    for (let i = 0; i < e.items.length; i++) {
      let a = e.items[i];
      r += this.listitem(a);
    }
    let s = t ? 'ol' : 'ul',
      o = t && n !== 1 ? ' start="' + n + '"' : '';
    return (
      '<' +
      s +
      o +
      `>
` +
      r +
      '</' +
      s +
      `>
`
    );
  }
  listitem(e) {
    return `<li>${this.parser.parse(e.tokens)}</li>
`;
  }
  checkbox({ checked: e }) {
    return '<input ' + (e ? 'checked="" ' : '') + 'disabled="" type="checkbox"> ';
  }
  paragraph({ tokens: e }) {
    return `<p>${this.parser.parseInline(e)}</p>
`;
  }
  table(e) {
    let t = '',
      n = '';
    for (let s = 0; s < e.header.length; s++) n += this.tablecell(e.header[s]);
    t += this.tablerow({ text: n });
    let r = '';
    for (let s = 0; s < e.rows.length; s++) {
      let o = e.rows[s];
      n = '';
      for (let i = 0; i < o.length; i++) n += this.tablecell(o[i]);
      r += this.tablerow({ text: n });
    }
    return (
      r && (r = `<tbody>${r}</tbody>`),
      `<table>
<thead>
` +
        t +
        `</thead>
` +
        r +
        `</table>
`
    );
  }
  tablerow({ text: e }) {
    return `<tr>
${e}</tr>
`;
  }
  tablecell(e) {
    let t = this.parser.parseInline(e.tokens),
      n = e.header ? 'th' : 'td';
    return (
      (e.align ? `<${n} align="${e.align}">` : `<${n}>`) +
      t +
      `</${n}>
`
    );
  }
  strong({ tokens: e }) {
    return `<strong>${this.parser.parseInline(e)}</strong>`;
  }
  em({ tokens: e }) {
    return `<em>${this.parser.parseInline(e)}</em>`;
  }
  codespan({ text: e }) {
    return `<code>${y(e, !0)}</code>`;
  }
  br(e) {
    return '<br>';
  }
  del({ tokens: e }) {
    return `<del>${this.parser.parseInline(e)}</del>`;
  }
  link({ href: e, title: t, text: n, tokens: r, autolink: s }) {
    let o = s ? y(n, !0) : this.parser.parseInline(r),
      i = xe(e);
    if (i === null) return o;
    e = y(i, s);
    let a = '<a href="' + e + '"';
    return (t && (a += ' title="' + y(t) + '"'), (a += '>' + o + '</a>'), a);
  }
  image({ href: e, title: t, text: n, tokens: r }) {
    r && (n = this.parser.parseInline(r, this.parser.textRenderer));
    let s = xe(e);
    if (s === null) return y(n);
    e = s;
    let o = `<img src="${y(e)}" alt="${y(n)}"`;
    return (t && (o += ` title="${y(t)}"`), (o += '>'), o);
  }
  text(e) {
    return 'tokens' in e && e.tokens
      ? this.parser.parseInline(e.tokens)
      : 'escaped' in e && e.escaped
        ? e.text
        : y(e.text);
  }
};
var z = class {
  parser;
  strong({ text: e, tokens: t }) {
    return t ? this.parser.parseInline(t, this) : e;
  }
  em({ text: e, tokens: t }) {
    return t ? this.parser.parseInline(t, this) : e;
  }
  codespan({ text: e }) {
    return e;
  }
  del({ text: e, tokens: t }) {
    return t ? this.parser.parseInline(t, this) : e;
  }
  html({ text: e }) {
    return e;
  }
  text({ text: e }) {
    return e;
  }
  link({ text: e, tokens: t }) {
    return t ? this.parser.parseInline(t, this) : e;
  }
  image({ text: e, tokens: t }) {
    return t ? this.parser.parseInline(t, this) : e;
  }
  br() {
    return `
`;
  }
  checkbox({ raw: e }) {
    return e;
  }
};
var P = class l {
  options;
  renderer;
  textRenderer;
  constructor(e) {
    ((this.options = e || S),
      (this.options.renderer = this.options.renderer || new I()),
      (this.renderer = this.options.renderer),
      (this.renderer.options = this.options),
      (this.renderer.parser = this),
      (this.textRenderer = new z()),
      (this.textRenderer.parser = this));
  }
  static parse(e, t) {
    return new l(t).parse(e);
  }
  static parseInline(e, t) {
    return new l(t).parseInline(e);
  }
  parse(e) {
    this.renderer.parser = this;
    let t = '';
    for (let n = 0; n < e.length; n++) {
      let r = e[n];
      if (this.options.extensions?.renderers?.[r.type]) {
        let o = r,
          i = this.options.extensions.renderers[o.type].call({ parser: this }, o);
        if (
          i !== !1 ||
          ![
            'space',
            'hr',
            'heading',
            'code',
            'table',
            'blockquote',
            'list',
            'checkbox',
            'html',
            'def',
            'paragraph',
            'text',
          ].includes(o.type)
        ) {
          t += i === !1 ? '' : (i ?? '');
          continue;
        }
      }
      let s = r;
      switch (s.type) {
        case 'space':
          t += this.renderer.space(s);
          break;
        case 'hr':
          t += this.renderer.hr(s);
          break;
        case 'heading':
          t += this.renderer.heading(s);
          break;
        case 'code':
          t += this.renderer.code(s);
          break;
        case 'table':
          t += this.renderer.table(s);
          break;
        case 'blockquote':
          t += this.renderer.blockquote(s);
          break;
        case 'list':
          t += this.renderer.list(s);
          break;
        case 'checkbox':
          t += this.renderer.checkbox(s);
          break;
        case 'html':
          t += this.renderer.html(s);
          break;
        case 'def':
          t += this.renderer.def(s);
          break;
        case 'paragraph':
          t += this.renderer.paragraph(s);
          break;
        case 'text':
          t += this.renderer.text(s);
          break;
        default: {
          let o = 'Token with "' + s.type + '" type was not found.';
          if (this.options.silent) return (console.error(o), '');
          throw new Error(o);
        }
      }
    }
    return t;
  }
  parseInline(e, t = this.renderer) {
    this.renderer.parser = this;
    let n = '';
    for (let r = 0; r < e.length; r++) {
      let s = e[r];
      if (this.options.extensions?.renderers?.[s.type]) {
        let i = this.options.extensions.renderers[s.type].call({ parser: this }, s);
        if (
          i !== !1 ||
          ![
            'escape',
            'html',
            'link',
            'image',
            'checkbox',
            'strong',
            'em',
            'codespan',
            'br',
            'del',
            'text',
          ].includes(s.type)
        ) {
          n += i === !1 ? '' : (i ?? '');
          continue;
        }
      }
      let o = s;
      switch (o.type) {
        case 'escape':
          n += t.text(o);
          break;
        case 'html':
          n += t.html(o);
          break;
        case 'link':
          n += t.link(o);
          break;
        case 'image':
          n += t.image(o);
          break;
        case 'checkbox':
          n += t.checkbox(o);
          break;
        case 'strong':
          n += t.strong(o);
          break;
        case 'em':
          n += t.em(o);
          break;
        case 'codespan':
          n += t.codespan(o);
          break;
        case 'br':
          n += t.br(o);
          break;
        case 'del':
          n += t.del(o);
          break;
        case 'text':
          n += t.text(o);
          break;
        default: {
          let i = 'Token with "' + o.type + '" type was not found.';
          if (this.options.silent) return (console.error(i), '');
          throw new Error(i);
        }
      }
    }
    return n;
  }
};
var A = class {
  options;
  block;
  constructor(e) {
    this.options = e || S;
  }
  static passThroughHooks = /* @__PURE__ */ new Set([
    'preprocess',
    'postprocess',
    'processAllTokens',
    'emStrongMask',
  ]);
  static passThroughHooksRespectAsync = /* @__PURE__ */ new Set([
    'preprocess',
    'postprocess',
    'processAllTokens',
  ]);
  preprocess(e) {
    return e;
  }
  postprocess(e) {
    return e;
  }
  processAllTokens(e) {
    return e;
  }
  emStrongMask(e) {
    return e;
  }
  provideLexer(e = this.block) {
    return e ? w.lex : w.lexInline;
  }
  provideParser(e = this.block) {
    return e ? P.parse : P.parseInline;
  }
};
function M(l, e) {
  if (Array.isArray(e)) for (let t = 0; t < e.length; t++) l.push(e[t]);
  else l.push(e);
}
var ne = class {
  defaults = G();
  options = this.setOptions;
  parse = this.parseMarkdown(!0);
  parseInline = this.parseMarkdown(!1);
  Parser = P;
  Renderer = I;
  TextRenderer = z;
  Lexer = w;
  Tokenizer = _;
  Hooks = A;
  constructor(...e) {
    this.use(...e);
  }
  walkTokens(e, t) {
    let n = [];
    for (let r of e)
      switch ((M(n, t.call(this, r)), r.type)) {
        case 'table': {
          let s = r;
          for (let o of s.header) M(n, this.walkTokens(o.tokens, t));
          for (let o of s.rows) for (let i of o) M(n, this.walkTokens(i.tokens, t));
          break;
        }
        case 'list': {
          let s = r;
          M(n, this.walkTokens(s.items, t));
          break;
        }
        default: {
          let s = r;
          this.defaults.extensions?.childTokens?.[s.type]
            ? this.defaults.extensions.childTokens[s.type].forEach((o) => {
                let i = s[o].flat(1 / 0);
                M(n, this.walkTokens(i, t));
              })
            : s.tokens && M(n, this.walkTokens(s.tokens, t));
        }
      }
    return n;
  }
  use(...e) {
    let t = this.defaults.extensions || {
      renderers: Object.create(null),
      childTokens: Object.create(null),
    };
    return (
      e.forEach((n) => {
        let r = { ...n };
        if (
          ((r.async = this.defaults.async || r.async || !1),
          n.extensions &&
            (n.extensions.forEach((s) => {
              if (!s.name) throw new Error('extension name required');
              if ('renderer' in s) {
                let o = t.renderers[s.name];
                o
                  ? (t.renderers[s.name] = function (...i) {
                      let a = s.renderer.apply(this, i);
                      return (a === !1 && (a = o.apply(this, i)), a);
                    })
                  : (t.renderers[s.name] = s.renderer);
              }
              if ('tokenizer' in s) {
                if (!s.level || (s.level !== 'block' && s.level !== 'inline'))
                  throw new Error("extension level must be 'block' or 'inline'");
                let o = t[s.level];
                (o ? o.unshift(s.tokenizer) : (t[s.level] = [s.tokenizer]),
                  s.start &&
                    (s.level === 'block'
                      ? t.startBlock
                        ? t.startBlock.push(s.start)
                        : (t.startBlock = [s.start])
                      : s.level === 'inline' &&
                        (t.startInline ? t.startInline.push(s.start) : (t.startInline = [s.start]))));
              }
              'childTokens' in s && s.childTokens && (t.childTokens[s.name] = s.childTokens);
            }),
            (r.extensions = t)),
          n.renderer)
        ) {
          let s = this.defaults.renderer || new I(this.defaults);
          for (let o in n.renderer) {
            if (!(o in s)) throw new Error(`renderer '${o}' does not exist`);
            if (['options', 'parser'].includes(o)) continue;
            let i = o,
              a = n.renderer[i],
              c = s[i];
            s[i] = (...u) => {
              let d = a.apply(s, u);
              return (d === !1 && (d = c.apply(s, u)), d === !1 ? '' : (d ?? ''));
            };
          }
          r.renderer = s;
        }
        if (n.tokenizer) {
          let s = this.defaults.tokenizer || new _(this.defaults);
          for (let o in n.tokenizer) {
            if (!(o in s)) throw new Error(`tokenizer '${o}' does not exist`);
            if (['options', 'rules', 'lexer'].includes(o)) continue;
            let i = o,
              a = n.tokenizer[i],
              c = s[i];
            s[i] = (...u) => {
              let d = a.apply(s, u);
              return (d === !1 && (d = c.apply(s, u)), d);
            };
          }
          r.tokenizer = s;
        }
        if (n.hooks) {
          let s = this.defaults.hooks || new A();
          for (let o in n.hooks) {
            if (!(o in s)) throw new Error(`hook '${o}' does not exist`);
            if (['options', 'block'].includes(o)) continue;
            let i = o,
              a = n.hooks[i],
              c = s[i];
            A.passThroughHooks.has(o)
              ? (s[i] = (u) => {
                  if (s.options.async && A.passThroughHooksRespectAsync.has(o))
                    return (async () => {
                      let h = await a.call(s, u);
                      return c.call(s, h);
                    })();
                  let d = a.call(s, u);
                  return c.call(s, d);
                })
              : (s[i] = (...u) => {
                  if (s.options.async)
                    return (async () => {
                      let h = await a.apply(s, u);
                      return (h === !1 && (h = await c.apply(s, u)), h);
                    })();
                  let d = a.apply(s, u);
                  return (d === !1 && (d = c.apply(s, u)), d);
                });
          }
          r.hooks = s;
        }
        if (n.walkTokens) {
          let s = this.defaults.walkTokens,
            o = n.walkTokens;
          r.walkTokens = function (i) {
            let a = [];
            return (M(a, o.call(this, i)), s && M(a, s.call(this, i)), a);
          };
        }
        this.defaults = {
          ...this.defaults,
          ...r,
        };
      }),
      this
    );
  }
  setOptions(e) {
    return (
      (this.defaults = {
        ...this.defaults,
        ...e,
      }),
      this
    );
  }
  lexer(e, t) {
    return w.lex(e, t ?? this.defaults);
  }
  parser(e, t) {
    return P.parse(e, t ?? this.defaults);
  }
  parseMarkdown(e) {
    return (n, r) => {
      let s = { ...r },
        o = {
          ...this.defaults,
          ...s,
        },
        i = this.onError(!!o.silent, !!o.async);
      if (this.defaults.async === !0 && s.async === !1)
        return i(
          /* @__PURE__ */ new Error(
            'marked(): The async option was set to true by an extension. Remove async: false from the parse options object to return a Promise.',
          ),
        );
      if (typeof n > 'u' || n === null)
        return i(/* @__PURE__ */ new Error('marked(): input parameter is undefined or null'));
      if (typeof n != 'string')
        return i(
          /* @__PURE__ */ new Error(
            'marked(): input parameter is of type ' + Object.prototype.toString.call(n) + ', string expected',
          ),
        );
      if ((o.hooks && ((o.hooks.options = o), (o.hooks.block = e)), o.async))
        return (async () => {
          let a = o.hooks ? await o.hooks.preprocess(n) : n,
            u = await (o.hooks ? await o.hooks.provideLexer(e) : e ? w.lex : w.lexInline)(a, o),
            d = o.hooks ? await o.hooks.processAllTokens(u) : u;
          o.walkTokens && (await Promise.all(this.walkTokens(d, o.walkTokens)));
          let p = await (o.hooks ? await o.hooks.provideParser(e) : e ? P.parse : P.parseInline)(d, o);
          return o.hooks ? await o.hooks.postprocess(p) : p;
        })().catch(i);
      try {
        o.hooks && (n = o.hooks.preprocess(n));
        let c = (o.hooks ? o.hooks.provideLexer(e) : e ? w.lex : w.lexInline)(n, o);
        (o.hooks && (c = o.hooks.processAllTokens(c)), o.walkTokens && this.walkTokens(c, o.walkTokens));
        let d = (o.hooks ? o.hooks.provideParser(e) : e ? P.parse : P.parseInline)(c, o);
        return (o.hooks && (d = o.hooks.postprocess(d)), d);
      } catch (a) {
        return i(a);
      }
    };
  }
  onError(e, t) {
    return (n) => {
      if (
        ((n.message += `
Please report this to https://github.com/markedjs/marked.`),
        e)
      ) {
        let r = '<p>An error occurred:</p><pre>' + y(n.message + '', !0) + '</pre>';
        return t ? Promise.resolve(r) : r;
      }
      if (t) return Promise.reject(n);
      throw n;
    };
  }
};
var v = new ne();
function x(l, e) {
  return v.parse(l, e);
}
x.options = x.setOptions = function (l) {
  return (v.setOptions(l), (x.defaults = v.defaults), ue(x.defaults), x);
};
x.getDefaults = G;
x.defaults = S;
function jt(...l) {
  return (v.use(...l), (x.defaults = v.defaults), ue(x.defaults), x);
}
x.use = jt;
x.walkTokens = function (l, e) {
  return v.walkTokens(l, e);
};
x.parseInline = v.parseInline;
x.Parser = P;
x.parser = P.parse;
x.Renderer = I;
x.TextRenderer = z;
x.Lexer = w;
x.lexer = w.lex;
x.Tokenizer = _;
x.Hooks = A;
x.parse = x;
x.options;
x.setOptions;
x.walkTokens;
x.parseInline;
P.parse;
w.lex;
// node_modules/preact/jsx-runtime/dist/jsxRuntime.mjs
var f = Symbol.for('pv');
var o = 0;
Array.isArray;
function a(t, e, n$1, u, a, i) {
  e || (e = {});
  var c,
    l,
    p = e;
  if ('ref' in p && 'function' != typeof t) for (l in ((p = {}), e)) 'ref' == l ? (c = e[l]) : (p[l] = e[l]);
  var s = {
    type: t,
    props: p,
    key: n$1,
    ref: c,
    __k: null,
    __: null,
    __b: 0,
    __e: null,
    __c: null,
    constructor: f,
    __v: --o,
    __i: -1,
    __u: 0,
  };
  return ((a || i) && ((s.__source = a), (s.__self = i)), n.vnode && n.vnode(s), s);
}
// node_modules/eventsource-parser/dist/index.js
var ParseError = class extends Error {
  constructor(message, options) {
    (super(message),
      (this.name = 'ParseError'),
      (this.type = options.type),
      (this.field = options.field),
      (this.value = options.value),
      (this.line = options.line));
  }
};
var LF = 10;
var CR = 13;
var SPACE = 32;
function noop(_arg) {}
function createParser(config) {
  if (typeof config == 'function')
    throw new TypeError(
      '`config` must be an object, got a function instead. Did you mean `createParser({onEvent: fn})`?',
    );
  const { onEvent = noop, onError = noop, onRetry = noop, onComment, maxBufferSize } = config,
    pendingFragments = [];
  let pendingFragmentsLength = 0,
    isFirstChunk = !0,
    id,
    data = '',
    dataLines = 0,
    eventType,
    terminated = !1;
  function feed(chunk) {
    if (terminated)
      throw new Error(
        'Cannot feed parser: it was terminated after exceeding the configured max buffer size. Call `reset()` to resume parsing.',
      );
    if (
      (isFirstChunk &&
        ((isFirstChunk = !1),
        chunk.charCodeAt(0) === 239 &&
          chunk.charCodeAt(1) === 187 &&
          chunk.charCodeAt(2) === 191 &&
          (chunk = chunk.slice(3))),
      pendingFragments.length === 0)
    ) {
      const trailing2 = processLines(chunk);
      (trailing2 !== '' && (pendingFragments.push(trailing2), (pendingFragmentsLength = trailing2.length)),
        checkBufferSize());
      return;
    }
    if (
      chunk.indexOf(`
`) === -1 &&
      chunk.indexOf('\r') === -1
    ) {
      (pendingFragments.push(chunk), (pendingFragmentsLength += chunk.length), checkBufferSize());
      return;
    }
    pendingFragments.push(chunk);
    const input = pendingFragments.join('');
    ((pendingFragments.length = 0), (pendingFragmentsLength = 0));
    const trailing = processLines(input);
    (trailing !== '' && (pendingFragments.push(trailing), (pendingFragmentsLength = trailing.length)),
      checkBufferSize());
  }
  function checkBufferSize() {
    maxBufferSize !== void 0 &&
      (pendingFragmentsLength + data.length <= maxBufferSize ||
        ((terminated = !0),
        (pendingFragments.length = 0),
        (pendingFragmentsLength = 0),
        (id = void 0),
        (data = ''),
        (dataLines = 0),
        (eventType = void 0),
        onError(
          new ParseError(`Buffered data exceeded max buffer size of ${maxBufferSize} characters`, {
            type: 'max-buffer-size-exceeded',
          }),
        )));
  }
  function processLines(chunk) {
    let searchIndex = 0;
    if (chunk.indexOf('\r') === -1) {
      let lfIndex = chunk.indexOf(
        `
`,
        searchIndex,
      );
      for (; lfIndex !== -1;) {
        if (searchIndex === lfIndex) {
          (dataLines > 0 &&
            onEvent({
              id,
              event: eventType,
              data,
            }),
            (id = void 0),
            (data = ''),
            (dataLines = 0),
            (eventType = void 0),
            (searchIndex = lfIndex + 1),
            (lfIndex = chunk.indexOf(
              `
`,
              searchIndex,
            )));
          continue;
        }
        const firstCharCode = chunk.charCodeAt(searchIndex);
        if (isDataPrefix(chunk, searchIndex, firstCharCode)) {
          const valueStart = chunk.charCodeAt(searchIndex + 5) === SPACE ? searchIndex + 6 : searchIndex + 5,
            value = chunk.slice(valueStart, lfIndex);
          if (dataLines === 0 && chunk.charCodeAt(lfIndex + 1) === LF) {
            (onEvent({
              id,
              event: eventType,
              data: value,
            }),
              (id = void 0),
              (data = ''),
              (eventType = void 0),
              (searchIndex = lfIndex + 2),
              (lfIndex = chunk.indexOf(
                `
`,
                searchIndex,
              )));
            continue;
          }
          ((data =
            dataLines === 0
              ? value
              : `${data}
${value}`),
            dataLines++);
        } else
          isEventPrefix(chunk, searchIndex, firstCharCode)
            ? (eventType =
                chunk.slice(
                  chunk.charCodeAt(searchIndex + 6) === SPACE ? searchIndex + 7 : searchIndex + 6,
                  lfIndex,
                ) || void 0)
            : parseLine(chunk, searchIndex, lfIndex);
        ((searchIndex = lfIndex + 1),
          (lfIndex = chunk.indexOf(
            `
`,
            searchIndex,
          )));
      }
      return chunk.slice(searchIndex);
    }
    for (; searchIndex < chunk.length;) {
      const crIndex = chunk.indexOf('\r', searchIndex),
        lfIndex = chunk.indexOf(
          `
`,
          searchIndex,
        );
      let lineEnd = -1;
      if (
        (crIndex !== -1 && lfIndex !== -1
          ? (lineEnd = crIndex < lfIndex ? crIndex : lfIndex)
          : crIndex !== -1
            ? crIndex === chunk.length - 1
              ? (lineEnd = -1)
              : (lineEnd = crIndex)
            : lfIndex !== -1 && (lineEnd = lfIndex),
        lineEnd === -1)
      )
        break;
      (parseLine(chunk, searchIndex, lineEnd),
        (searchIndex = lineEnd + 1),
        chunk.charCodeAt(searchIndex - 1) === CR && chunk.charCodeAt(searchIndex) === LF && searchIndex++);
    }
    return chunk.slice(searchIndex);
  }
  function parseLine(chunk, start, end) {
    if (start === end) {
      dispatchEvent();
      return;
    }
    const firstCharCode = chunk.charCodeAt(start);
    if (isDataPrefix(chunk, start, firstCharCode)) {
      const valueStart = chunk.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5,
        value2 = chunk.slice(valueStart, end);
      ((data =
        dataLines === 0
          ? value2
          : `${data}
${value2}`),
        dataLines++);
      return;
    }
    if (isEventPrefix(chunk, start, firstCharCode)) {
      eventType = chunk.slice(chunk.charCodeAt(start + 6) === SPACE ? start + 7 : start + 6, end) || void 0;
      return;
    }
    if (firstCharCode === 105 && chunk.charCodeAt(start + 1) === 100 && chunk.charCodeAt(start + 2) === 58) {
      const value2 = chunk.slice(chunk.charCodeAt(start + 3) === SPACE ? start + 4 : start + 3, end);
      value2.includes('\0') || (id = value2);
      return;
    }
    if (firstCharCode === 58) {
      if (onComment) {
        const line2 = chunk.slice(start, end);
        onComment(line2.slice(chunk.charCodeAt(start + 1) === SPACE ? 2 : 1));
      }
      return;
    }
    const line = chunk.slice(start, end),
      fieldSeparatorIndex = line.indexOf(':');
    if (fieldSeparatorIndex === -1) {
      processField(line, '', line);
      return;
    }
    const field = line.slice(0, fieldSeparatorIndex),
      offset = line.charCodeAt(fieldSeparatorIndex + 1) === SPACE ? 2 : 1;
    processField(field, line.slice(fieldSeparatorIndex + offset), line);
  }
  function processField(field, value, line) {
    switch (field) {
      case 'event':
        eventType = value || void 0;
        break;
      case 'data':
        ((data =
          dataLines === 0
            ? value
            : `${data}
${value}`),
          dataLines++);
        break;
      case 'id':
        value.includes('\0') || (id = value);
        break;
      case 'retry':
        /^\d+$/.test(value)
          ? onRetry(parseInt(value, 10))
          : onError(
              new ParseError(`Invalid \`retry\` value: "${value}"`, {
                type: 'invalid-retry',
                value,
                line,
              }),
            );
        break;
      default:
        onError(
          new ParseError(`Unknown field "${field.length > 20 ? `${field.slice(0, 20)}\u2026` : field}"`, {
            type: 'unknown-field',
            field,
            value,
            line,
          }),
        );
    }
  }
  function dispatchEvent() {
    (dataLines > 0 &&
      onEvent({
        id,
        event: eventType,
        data,
      }),
      (id = void 0),
      (data = ''),
      (dataLines = 0),
      (eventType = void 0));
  }
  function reset(options = {}) {
    if (options.consume && pendingFragments.length > 0) {
      const incompleteLine = pendingFragments.join('');
      parseLine(incompleteLine, 0, incompleteLine.length);
    }
    ((isFirstChunk = !0),
      (id = void 0),
      (data = ''),
      (dataLines = 0),
      (eventType = void 0),
      (pendingFragments.length = 0),
      (pendingFragmentsLength = 0),
      (terminated = !1));
  }
  return {
    feed,
    reset,
  };
}
function isDataPrefix(chunk, i, firstCharCode) {
  return (
    firstCharCode === 100 &&
    chunk.charCodeAt(i + 1) === 97 &&
    chunk.charCodeAt(i + 2) === 116 &&
    chunk.charCodeAt(i + 3) === 97 &&
    chunk.charCodeAt(i + 4) === 58
  );
}
function isEventPrefix(chunk, i, firstCharCode) {
  return (
    firstCharCode === 101 &&
    chunk.charCodeAt(i + 1) === 118 &&
    chunk.charCodeAt(i + 2) === 101 &&
    chunk.charCodeAt(i + 3) === 110 &&
    chunk.charCodeAt(i + 4) === 116 &&
    chunk.charCodeAt(i + 5) === 58
  );
}
export {
  d as A,
  bash as C,
  F$1 as D,
  A$1 as E,
  $ as M,
  Q$1 as N,
  T as O,
  c as S,
  purify_default as T,
  go as _,
  xml as a,
  css as b,
  shell as c,
  plaintext as d,
  markdown as f,
  ini as g,
  java as h,
  yaml as i,
  w$1 as j,
  b as k,
  rust as l,
  javascript$1 as m,
  a as n,
  typescript as o,
  json as p,
  ne as r,
  sql as s,
  createParser as t,
  python as u,
  dockerfile as v,
  core_default as w,
  cpp as x,
  diff as y,
};
