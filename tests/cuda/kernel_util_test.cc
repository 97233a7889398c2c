// The host-side planning of the CUDA kernels, which runs without a GPU:
// broadcast strides, row-major strides, the element-type mapping and the
// workspace carving of the sorting kernels.
#include "devices/cuda/kernel_util.h"

#include "gmock/gmock.h"
#include "graph/op.h"
#include "gtest/gtest.h"
#include "devices/cuda/ordering_launch.h"

namespace symx {
namespace cuda {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

KernelContext Ctx(NodeAttrs* attrs) {
  attrs->name = "node";
  attrs->op = OpRegistry::Global().Find("broadcast_add");
  KernelContext ctx;
  ctx.attrs = attrs;
  return ctx;
}

TEST(CudaKernelUtilTest, BroadcastStridesAreZeroOnRepeatedAxes) {
  NodeAttrs attrs;
  KernelContext ctx = Ctx(&attrs);
  // (2, 3, 4) = (2, 1, 4) + (3, 1): b is right-aligned.
  auto d = MakeBroadcastDims(ctx, Shape({2, 1, 4}), Shape({3, 1}), Shape({2, 3, 4}));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->ndim, 3);
  EXPECT_THAT(std::vector<int64_t>(d->out_dims, d->out_dims + 3), ElementsAre(2, 3, 4));
  EXPECT_THAT(std::vector<int64_t>(d->a_strides, d->a_strides + 3), ElementsAre(4, 0, 1));
  EXPECT_THAT(std::vector<int64_t>(d->b_strides, d->b_strides + 3), ElementsAre(0, 1, 0));
}

TEST(CudaKernelUtilTest, MoreDimsThanTheKernelsTakeIsAnErrorNamingTheNode) {
  NodeAttrs attrs;
  KernelContext ctx = Ctx(&attrs);
  Shape big(std::vector<int64_t>(kMaxDims + 1, 1));
  auto d = MakeBroadcastDims(ctx, big, big, big);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("node"));
  EXPECT_THAT(d.status().message(), HasSubstr("more than 8 dims"));
}

TEST(CudaKernelUtilTest, RowMajorStrides) {
  EXPECT_THAT(StridesOf(Shape({2, 3, 4})), ElementsAre(12, 4, 1));
  EXPECT_THAT(StridesOf(Shape({})), ElementsAre());
}

TEST(CudaKernelUtilTest, ElementTypesFollowTheTypeFlags) {
  NodeAttrs attrs;
  KernelContext ctx = Ctx(&attrs);
  EXPECT_EQ(*FloatElem(ctx, DType::kBFloat16), Elem::kBF16);
  EXPECT_EQ(*AnyElem(ctx, DType::kInt64), Elem::kI64);
  auto bad = FloatElem(ctx, DType::kInt32);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("int32"));
  EXPECT_FALSE(AnyElem(ctx, DType::kUint16).ok());  // no CUDA kernel stores uint16
}

TEST(CudaKernelUtilTest, Float32Or64ElemRejectsTheHalfTypes) {
  NodeAttrs attrs;
  KernelContext ctx = Ctx(&attrs);
  EXPECT_EQ(*Float32Or64Elem(ctx, DType::kFloat64), Elem::kF64);
  auto bad = Float32Or64Elem(ctx, DType::kFloat16);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("float16"));
}

TEST(CudaKernelUtilTest, WorkspacePiecesAre256ByteAligned) {
  WorkspacePieces w;
  EXPECT_EQ(w.Take(10), 0u);
  EXPECT_EQ(w.Take(256), 256u);
  EXPECT_EQ(w.Take(0), 512u);
  EXPECT_EQ(w.Take(257), 512u);
  EXPECT_EQ(w.total(), 1024u);
}

TEST(CudaKernelUtilTest, AnUnsortableSortPieceZeroesTheTotal) {
  WorkspacePieces w;
  w.Take(100);
  // More keys than CUB's int32 item count: LaunchSortRows cannot take them.
  const WorkspacePieces::SortPiece p = w.TakeSort(Elem::kF32, SortDims{2, int64_t{1} << 31, 1});
  EXPECT_EQ(p.bytes, 0u);
  EXPECT_EQ(p.offset, 256u);
  w.Take(10);
  EXPECT_EQ(w.total(), 0u);  // so the layout's user gets SortingWorkspaceOf's error
}

TEST(CudaKernelUtilTest, AnUnsortableSizeIsAnErrorNamingTheNodeAndTheSizes) {
  NodeAttrs attrs;
  KernelContext ctx = Ctx(&attrs);
  // The layouts size themselves 0 when LaunchSortRows cannot take the keys.
  auto ws = SortingWorkspaceOf(ctx, 0, 3, int64_t{1} << 31);
  ASSERT_FALSE(ws.ok());
  EXPECT_THAT(ws.status().message(), HasSubstr("node"));
  EXPECT_THAT(ws.status().message(), HasSubstr("3 x 2147483648 sort keys exceed"));
  // With a size, it is the planned workspace (here: none was planned).
  EXPECT_FALSE(SortingWorkspaceOf(ctx, 64, 1, 4).ok());
}

}  // namespace
}  // namespace cuda
}  // namespace symx
