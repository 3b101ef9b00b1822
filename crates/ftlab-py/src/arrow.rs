//! The core's tables as Arrow: `to_record_batch` turns an `ftlab::Table` into an Arrow
//! `RecordBatch`, and `ArrowTable` (`ftlab._core.ArrowTable`) hands it to Python through the
//! Arrow PyCapsule interface (`__arrow_c_stream__`, `__arrow_c_schema__`,
//! `__arrow_c_array__`), which polars (`pl.DataFrame(t)`) and pyarrow (`pa.table(t)`) import
//! without any per-value Python work.
//!
//! Numeric columns are moved, not copied: a `Vec<f64>`/`Vec<u64>` becomes the Arrow buffer
//! itself, and the consumer reads that memory until it releases it. String columns are copied
//! once into Arrow's offsets-and-bytes layout (`Utf8`; `LargeUtf8` past 2 GiB of text).
//! This is not a general Arrow binding: it produces exactly the three column types of `Table`,
//! one batch per table, and reads nothing from Python.

use std::ffi::CStr;
use std::sync::Arc;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{
    Array, ArrayRef, Float64Array, LargeStringArray, RecordBatch, RecordBatchIterator, RecordBatchOptions,
    StringArray, StructArray, UInt64Array,
};
use arrow_buffer::ScalarBuffer;
use arrow_schema::{ArrowError, Field, Schema, SchemaRef};
use ftlab::{Column, Table};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

const SCHEMA_CAPSULE: &CStr = c"arrow_schema";
const ARRAY_CAPSULE: &CStr = c"arrow_array";
const STREAM_CAPSULE: &CStr = c"arrow_array_stream";

/// One column as an Arrow array, consuming it (numeric vectors become the array's buffer).
fn to_array(column: Column) -> ArrayRef {
    match column {
        Column::F64(v) => Arc::new(Float64Array::new(ScalarBuffer::from(v), None)),
        Column::U64(v) => Arc::new(UInt64Array::new(ScalarBuffer::from(v), None)),
        Column::Str(v) => {
            let bytes: usize = v.iter().map(String::len).sum();
            if i32::try_from(bytes).is_ok() {
                Arc::new(StringArray::from_iter_values(&v))
            } else {
                Arc::new(LargeStringArray::from_iter_values(&v))
            }
        }
    }
}

/// A table as one Arrow record batch, same column names and order; `Str` is Utf8 (or
/// LargeUtf8), `F64` Float64, `U64` UInt64, no nulls. Panics if the columns' lengths differ
/// (a core bug: every `Table` has equal-length columns).
pub fn to_record_batch(table: Table) -> RecordBatch {
    let rows = table.columns.first().map_or(0, |(_, c)| match c {
        Column::Str(v) => v.len(),
        Column::F64(v) => v.len(),
        Column::U64(v) => v.len(),
    });
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = table
        .columns
        .into_iter()
        .map(|(name, column)| {
            let array = to_array(column);
            (Field::new(name, array.data_type().clone(), false), array)
        })
        .unzip();
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
        .expect("a core table's columns have equal lengths")
}

fn arrow_err(e: ArrowError) -> PyErr {
    PyValueError::new_err(format!("Arrow export failed: {e}"))
}

/// A table of `ftlab._core.run`'s result, held in Arrow memory. Import it with
/// `polars.DataFrame(t)` or `pyarrow.table(t)` (the Arrow PyCapsule interface); each import
/// shares the buffers, nothing is copied per value.
#[pyclass(frozen, module = "ftlab._core", name = "ArrowTable")]
pub struct ArrowTable {
    batch: RecordBatch,
}

impl ArrowTable {
    pub fn new(table: Table) -> Self {
        Self { batch: to_record_batch(table) }
    }

    fn schema(&self) -> SchemaRef {
        self.batch.schema()
    }
}

#[pymethods]
impl ArrowTable {
    /// The number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema().fields().iter().map(|f| f.name().clone()).collect()
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    fn __repr__(&self) -> String {
        let cols: Vec<String> =
            self.schema().fields().iter().map(|f| format!("{}: {}", f.name(), f.data_type())).collect();
        format!("<ftlab._core.ArrowTable rows={} [{}]>", self.batch.num_rows(), cols.join(", "))
    }

    /// The schema as an `arrow_schema` PyCapsule (a struct of the columns).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.schema().as_ref()).map_err(arrow_err)?;
        PyCapsule::new_with_value(py, schema, SCHEMA_CAPSULE)
    }

    /// The table as one struct array: `(arrow_schema, arrow_array)` PyCapsules.
    /// `requested_schema` is ignored (the interface allows it): the table has one layout.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let data = StructArray::from(self.batch.clone()).into_data();
        let schema = FFI_ArrowSchema::try_from(data.data_type()).map_err(arrow_err)?;
        let array = FFI_ArrowArray::new(&data);
        let schema = PyCapsule::new_with_value(py, schema, SCHEMA_CAPSULE)?;
        let array = PyCapsule::new_with_value(py, array, ARRAY_CAPSULE)?;
        PyTuple::new(py, [schema, array])
    }

    /// The table as an `arrow_array_stream` PyCapsule of one record batch.
    /// `requested_schema` is ignored (the interface allows it): the table has one layout.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new([Ok(self.batch.clone())], self.schema());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, STREAM_CAPSULE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, UInt64Type};
    use arrow_schema::DataType;

    fn table() -> Table {
        Table {
            columns: vec![
                ("scheme".into(), Column::Str(vec!["a".into(), "bé".into()])),
                ("t".into(), Column::F64(vec![0.5, f64::NAN])),
                ("n".into(), Column::U64(vec![1, u64::MAX])),
            ],
        }
    }

    #[test]
    fn columns_keep_names_order_types_and_values() {
        let b = to_record_batch(table());
        let names: Vec<&str> = b.schema_ref().fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["scheme", "t", "n"]);
        assert_eq!(b.column(0).data_type(), &DataType::Utf8);
        assert_eq!(b.column(0).as_string::<i32>().iter().collect::<Vec<_>>(), [Some("a"), Some("bé")]);
        let t = b.column(1).as_primitive::<Float64Type>();
        assert_eq!(t.value(0), 0.5);
        assert!(t.value(1).is_nan() && t.null_count() == 0);
        assert_eq!(b.column(2).as_primitive::<UInt64Type>().values().as_ref(), [1, u64::MAX]);
    }

    #[test]
    fn numeric_columns_are_moved_not_copied() {
        let v = vec![1.0, 2.0, 3.0];
        let ptr = v.as_ptr();
        let b = to_record_batch(Table { columns: vec![("x".into(), Column::F64(v))] });
        assert_eq!(b.column(0).as_primitive::<Float64Type>().values().as_ptr(), ptr);
    }

    #[test]
    fn empty_tables_keep_their_columns() {
        let b = to_record_batch(Table { columns: vec![("x".into(), Column::U64(Vec::new()))] });
        assert_eq!((b.num_rows(), b.num_columns()), (0, 1));
        assert_eq!(b.column(0).data_type(), &DataType::UInt64);
        let none = to_record_batch(Table::default());
        assert_eq!((none.num_rows(), none.num_columns()), (0, 0));
    }
}
