module scalelab/testbed

go 1.24
