// narrow
__device__ void narrow(granule::usize i, granule::u8& y, granule::i16& z, granule::i8 a, granule::u16 b, granule::View<const granule::u8, 1, granule::LayoutRight> x) {
  const granule::u8 s = granule::wadd(x(i), ((granule::u8)200));
  const granule::u8 n = ((granule::u8)(~s));
  granule::u16 t = granule::shl((granule::wmul(b, ((granule::u16)3))), 4u);
  t = granule::wmul(t, b);
  const granule::i8 c = granule::max(granule::abs((granule::wsub(a, ((granule::i8)1)))), ((granule::i8)-5));
  y = ((granule::u8)(granule::min(s, n) | (((granule::u8)(t)))));
  z = granule::wadd(granule::wmul((((granule::i16)(c))), ((granule::i16)300)), granule::div((granule::cast<granule::i16>(2.5e9)), ((granule::i16)2)));
}

